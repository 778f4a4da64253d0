import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { RYE_BIN } from './cli.js';

/** A `rye registry serve` process on an ephemeral loopback port. */
export interface RegistryProcess {
  /** `http://127.0.0.1:PORT`, from the server's listening line. */
  readonly url: string;
  readonly dataDir: string;
  /** The server's registry key fingerprint, from the listening line. */
  readonly fingerprint: string;
  readonly process: ChildProcess;
  /** Everything the server wrote to stderr so far (request logs). */
  stderr(): string;
  /** SIGTERM, wait for exit; removes the data folder when the helper made it. */
  stop(): Promise<void>;
  /** Send a signal (default SIGKILL) and wait for exit; the data folder is kept. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface RegistryProcessOptions {
  /** Data folder; default a fresh temp folder, removed by stop(). */
  readonly dataDir?: string;
  readonly databaseUrl?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Extra arguments for `rye registry serve`. */
  readonly args?: readonly string[];
}

/**
 * Start `node bin/rye.js registry serve --port 0` (the compiled CLI, built by
 * the vitest global setup) and resolve once it prints its listening line.
 */
export function startRegistryProcess(
  options: RegistryProcessOptions = {},
): Promise<RegistryProcess> {
  const owned = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'rye-registry-'));
  const args = [RYE_BIN, 'registry', 'serve', '--host', '127.0.0.1', '--port', '0'];
  args.push('--data', dataDir, ...(options.args ?? []));
  if (options.databaseUrl !== undefined) args.push('--database', options.databaseUrl);
  const child = spawn(process.execPath, args, {
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let listening: { url: string; fingerprint: string } | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitExit = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      child.kill('SIGKILL');
      if (owned) rmSync(dataDir, { recursive: true, force: true });
      reject(new Error(`rye registry serve ${why}\nstdout: ${stdout}\nstderr: ${stderr}`));
    };
    const timer = setTimeout(() => fail('did not print its listening line in 20 s'), 20_000);
    const early = (code: number | null) => {
      clearTimeout(timer);
      fail(`exited with ${String(code)} before listening`);
    };
    child.once('exit', early);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => l.includes('"listening"'));
      if (line === undefined || listening !== undefined) return;
      clearTimeout(timer);
      child.off('exit', early);
      listening = JSON.parse(line) as { url: string; fingerprint: string };
      resolve({
        url: listening.url,
        fingerprint: listening.fingerprint,
        dataDir,
        process: child,
        stderr: () => stderr,
        stop: async () => {
          await waitExit('SIGTERM');
          if (owned) rmSync(dataDir, { recursive: true, force: true });
        },
        kill: (signal = 'SIGKILL') => waitExit(signal),
      });
    });
  });
}

const PG_BASE = process.env['RYE_TEST_PG'] ?? 'postgres://127.0.0.1:5432/test';

/** A PostgreSQL URL with a fresh schema name (`?schema=reg_<random>`); the store creates it. */
export function pgTestUrl(): string {
  return `${PG_BASE}?schema=reg_${randomBytes(6).toString('hex')}`;
}

/** Drop the schema a {@link pgTestUrl} names, with everything in it. */
export async function dropPgSchema(url: string): Promise<void> {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  if (schema === null || !/^reg_[0-9a-f]+$/.test(schema)) {
    throw new Error(`dropPgSchema() only drops test schemas, not ${String(schema)}`);
  }
  parsed.search = '';
  // Like libpq (and the registry's store): no user in the URL means the login name.
  if (parsed.username === '') {
    parsed.username = process.env['PGUSER'] ?? process.env['USER'] ?? userInfo().username;
  }
  const client = new pg.Client({ connectionString: parsed.toString() });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
