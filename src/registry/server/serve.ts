import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { createRegistryApp } from './app.js';
import { InFlight } from './in-flight.js';
import type { LogFn, RegistryLimits } from './context.js';
import { REGISTRY_KEY_FILE, loadOrCreateRegistryKey } from './registry-key.js';
import { jsonLines } from './request-log.js';
import type { IndexOptions } from './signed-index.js';
import { openStore } from './store/index.js';

export interface RegistryServerOptions {
  readonly host: string;
  /** 0: an ephemeral port (the real one is reported). */
  readonly port: number;
  /** SQLite store, blobs and (by default) the registry key live here; created 0700. */
  readonly dataDir: string;
  /** `postgres://…`: rows and blobs in PostgreSQL instead of the data folder. */
  readonly databaseUrl?: string | undefined;
  /** The registry key file (default `<dataDir>/registry-key.pem`). */
  readonly keyFile?: string | undefined;
  readonly limits?: Partial<RegistryLimits>;
  /** The signed package index's validity (default 24 h). */
  readonly index?: IndexOptions;
  readonly log?: LogFn;
}

export interface RunningRegistry {
  /** `http://HOST:PORT`. */
  readonly url: string;
  readonly port: number;
  readonly fingerprint: string;
  readonly backend: 'sqlite' | 'postgres';
  /** Stop accepting, let requests in flight finish (5 s at most), close the store. */
  close(): Promise<void>;
}

const DRAIN_MS = 5_000;

/**
 * Open the store and key and listen. Logs start-up lines and, once
 * listening, `{msg:'listening', url, fingerprint, store}`.
 *
 * @throws RyeError from the key or the store; the listen error (EADDRINUSE…)
 */
export async function startRegistryServer(
  options: RegistryServerOptions,
): Promise<RunningRegistry> {
  const log = options.log ?? jsonLines((line) => process.stderr.write(line));
  const line = (msg: string, fields: Record<string, unknown> = {}) =>
    log({ time: new Date().toISOString(), level: 'info', msg, ...fields });
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const keyFile = options.keyFile ?? join(options.dataDir, REGISTRY_KEY_FILE);
  const key = await loadOrCreateRegistryKey(keyFile);
  line(key.created ? 'registry key created' : 'registry key loaded', {
    path: keyFile,
    fingerprint: key.fingerprint,
  });
  const store = await openStore({ dataDir: options.dataDir, databaseUrl: options.databaseUrl });
  line('store opened', { store: store.backend });
  const app = createRegistryApp({
    store,
    key,
    log,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.index === undefined ? {} : { index: options.index }),
  });

  const inFlight = new InFlight();
  const server = serve({
    fetch: (request, env) => inFlight.track(() => app.fetch(request, env)),
    port: options.port,
    hostname: options.host,
  }) as Server;
  const port = await new Promise<number>((resolve, reject) => {
    server.once('listening', () => resolve((server.address() as AddressInfo).port));
    server.once('error', reject);
  }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  // After listening, a server error (EMFILE on accept…) is logged, not fatal.
  server.removeAllListeners('error');
  server.on('error', (error) =>
    log({
      time: new Date().toISOString(),
      level: 'error',
      msg: 'server error',
      error: String(error),
    }),
  );
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}`;
  line('listening', { url, fingerprint: key.fingerprint, store: store.backend });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      await inFlight.idle(DRAIN_MS);
      await store.close();
      line('stopped');
    })();
    return closing;
  };
  return { url, port, fingerprint: key.fingerprint, backend: store.backend, close };
}
