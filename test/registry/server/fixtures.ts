import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { expect } from 'vitest';
import {
  fingerprintOf,
  generateKeyPair,
  signText,
  type Signer,
} from '../../../src/integrity/index.js';
import { signKeyProof } from '../../../src/registry/index.js';
import {
  createRegistryApp,
  openPostgresStore,
  openSqliteStore,
  registryKeyOf,
  type IndexOptions,
  type RegistryKey,
  type RegistryLimits,
  type RegistryStore,
} from '../../../src/registry/server/index.js';
import { PYTHON_TOOL } from '../../helpers/items.js';
import { makeSigner } from '../../helpers/keys.js';
import { dropPgSchema, pgTestUrl } from '../../helpers/registry-server.js';

/** An in-process registry over a real store: requests go through `app.request()`, no socket. */
export interface TestRegistry {
  readonly app: Hono;
  readonly store: RegistryStore;
  readonly key: RegistryKey;
  readonly dataDir: string;
  /** Every structured log entry written so far. */
  readonly logs: Record<string, unknown>[];
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  close(): Promise<void>;
}

export interface CallOptions {
  readonly token?: string;
  /** Sent as JSON unless it is a string or bytes. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field in tests
  readonly json: any;
}

export type Backend = 'sqlite' | 'postgres';

/** Fixed clock: attestation timestamps are then predictable. */
export const NOW = new Date('2026-01-02T03:04:05Z');

export async function makeRegistry(
  options: {
    backend?: Backend;
    limits?: Partial<RegistryLimits>;
    /** The clock (default: the fixed NOW). */
    now?: () => Date;
    index?: IndexOptions;
  } = {},
): Promise<TestRegistry> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rye-registry-test-'));
  const pgUrl = options.backend === 'postgres' ? pgTestUrl() : undefined;
  const store =
    pgUrl === undefined ? await openSqliteStore(dataDir) : await openPostgresStore(pgUrl);
  const key = registryKeyOf(generateKeyPair().privateKeyPem);
  const logs: Record<string, unknown>[] = [];
  const app = createRegistryApp({
    store,
    key,
    log: (entry) => logs.push(entry),
    now: options.now ?? (() => NOW),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.index === undefined ? {} : { index: options.index }),
  }) as unknown as Hono;
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token !== undefined) headers['authorization'] = `Bearer ${o.token}`;
    let body: string | Uint8Array | undefined;
    if (typeof o.body === 'string' || o.body instanceof Uint8Array) body = o.body;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await app.request(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, bytes, json };
  };
  return {
    app,
    store,
    key,
    dataDir,
    logs,
    call,
    close: async () => {
      await store.close();
      if (pgUrl !== undefined) await dropPgSchema(pgUrl);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** An account with one registered author key. */
export interface Author {
  readonly username: string;
  readonly token: string;
  readonly tokenId: string;
  readonly signer: Signer;
  readonly publicKeyPem: string;
}

export async function makeAuthor(registry: TestRegistry, username = 'alice'): Promise<Author> {
  const session = await registry.call('POST', '/v1/accounts', {
    body: { username, password: 'password-123' },
  });
  expect(session.status).toBe(201);
  const { signer, publicKeyPem } = makeSigner(username);
  const added = await registerKey(registry, session.json.token, username, signer, publicKeyPem);
  expect(added.status).toBe(201);
  return {
    username,
    token: session.json.token,
    tokenId: session.json.token_id,
    signer,
    publicKeyPem,
  };
}

/**
 * `POST /v1/keys` with proof of possession: ask a challenge, sign it with
 * `signer` (the key's private half, or another key to forge), send the key.
 */
export async function registerKey(
  registry: TestRegistry,
  token: string,
  username: string,
  signer: Signer,
  publicKeyPem: string,
): Promise<Answer> {
  const asked = await registry.call('POST', '/v1/keys/challenge', { token });
  expect(asked.status).toBe(201);
  const challenge = asked.json.challenge as string;
  const signature = signKeyProof(signer.privateKey, {
    registryFingerprint: registry.key.fingerprint,
    username,
    keyFingerprint: fingerprintOf(publicKeyPem),
    challenge,
  });
  return registry.call('POST', '/v1/keys', {
    token,
    body: { public_key: publicKeyPem, challenge, signature },
  });
}

/** A signed Python tool at `<category>/<name>` and the push body for it. */
export function toolPush(
  signer: Signer,
  namespace: string,
  options: { category?: string; name?: string; version?: string; extra?: string } = {},
): Record<string, string> {
  const category = options.category ?? 'utils';
  const version = options.version ?? '1.0.0';
  // The item declares the version it is pushed as (the registry checks they agree).
  const text = PYTHON_TOOL(category, options.extra ?? '').replace(
    '__version__ = "1.0.0"',
    `__version__ = "${version}"`,
  );
  return {
    item_type: 'tool',
    namespace,
    item_id: `${category}/${options.name ?? 'greet'}`,
    version,
    extension: '.py',
    content: signText(text, { itemType: 'tool', extension: '.py', signer }).text,
  };
}

/** Expect an error answer with this status and code. */
export function expectRefused(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.json?.error?.code }).toEqual({ status, code });
  expect(typeof answer.json.error.message).toBe('string');
}
