import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPair } from '../../../src/integrity/index.js';
import {
  createRegistryApp,
  registryKeyOf,
  statusFor,
  type RegistryStore,
} from '../../../src/registry/server/index.js';
import {
  expectRefused,
  makeAuthor,
  makeRegistry,
  toolPush,
  type TestRegistry,
} from './fixtures.js';

let registry: TestRegistry;
beforeEach(async () => {
  registry = await makeRegistry({ limits: { jsonBytes: 4096 } });
});
afterEach(async () => {
  await registry.close();
});

describe('createRegistryApp()', () => {
  it('serves /health and the registry key document', async () => {
    expect((await registry.call('GET', '/health')).json).toEqual({ status: 'ok', store: 'sqlite' });
    const key = await registry.call('GET', '/.well-known/rye-registry.json');
    expect(key.json).toEqual({
      protocol: 1,
      algorithm: 'ed25519',
      public_key: registry.key.publicKeyPem,
      fingerprint: registry.key.fingerprint,
    });
  });

  it('answers unknown endpoints with 404 REGISTRY_NOT_FOUND', async () => {
    expectRefused(await registry.call('GET', '/v2/anything'), 404, 'REGISTRY_NOT_FOUND');
    expectRefused(await registry.call('PATCH', '/v1/items'), 404, 'REGISTRY_NOT_FOUND');
  });

  it('refuses a JSON body over the limit (413), declared or streamed', async () => {
    const body = JSON.stringify({ username: 'alice', password: 'x'.repeat(5000) });
    const streamed = await registry.call('POST', '/v1/accounts', { body });
    expectRefused(streamed, 413, 'REGISTRY_BODY_TOO_LARGE');
    const declared = await registry.call('POST', '/v1/accounts', {
      body,
      headers: { 'content-length': String(body.length) },
    });
    expectRefused(declared, 413, 'REGISTRY_BODY_TOO_LARGE');
  });

  it('logs one JSON line per request, with the error code and without secrets', async () => {
    const alice = await makeAuthor(registry, 'alice');
    await registry.call('GET', '/v1/whoami', { token: 'rye_wrong' });
    await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: toolPush(alice.signer, 'alice'),
    });
    const lines = registry.logs.filter((l) => l['msg'] === 'request');
    expect(lines.map((l) => [l['method'], l['path'], l['status']])).toEqual([
      ['POST', '/v1/accounts', 201],
      ['POST', '/v1/keys/challenge', 201],
      ['POST', '/v1/keys', 201],
      ['GET', '/v1/whoami', 401],
      ['POST', '/v1/items', 201],
    ]);
    expect(lines[3]).toMatchObject({ level: 'warn', code: 'REGISTRY_AUTH_INVALID' });
    expect(lines[0]).toEqual({
      time: expect.any(String),
      level: 'info',
      msg: 'request',
      method: 'POST',
      path: '/v1/accounts',
      status: 201,
      ms: expect.any(Number),
    });
    const all = JSON.stringify(registry.logs);
    expect(all).not.toContain(alice.token);
    expect(all).not.toContain('password-123');
  });

  it('answers an unexpected failure as 500 REGISTRY_INTERNAL, logging but not leaking it', async () => {
    const failing = new Proxy(registry.store, {
      get(target, name, receiver) {
        if (name === 'search')
          return () => Promise.reject(new Error('disk on fire at /secret/path'));
        return Reflect.get(target, name, receiver) as unknown;
      },
    }) as RegistryStore;
    const logs: Record<string, unknown>[] = [];
    const app = createRegistryApp({
      store: failing,
      key: registryKeyOf(generateKeyPair().privateKeyPem),
      log: (entry) => logs.push(entry),
    });
    const answer = await app.request('/v1/search?q=x');
    expect(answer.status).toBe(500);
    const body = (await answer.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('REGISTRY_INTERNAL');
    expect(body.error.message).not.toContain('secret');
    expect(JSON.stringify(logs)).toContain('disk on fire at /secret/path');
  });
});

describe('statusFor()', () => {
  it('maps every code of the protocol README to its status', () => {
    const table: Record<number, string[]> = {
      400: ['REGISTRY_INVALID_REQUEST', 'REGISTRY_REF_INVALID'],
      401: ['REGISTRY_AUTH_REQUIRED', 'REGISTRY_AUTH_INVALID'],
      403: ['REGISTRY_FORBIDDEN', 'ITEM_ID_RESERVED'],
      404: ['REGISTRY_NOT_FOUND'],
      409: ['REGISTRY_USERNAME_TAKEN', 'REGISTRY_VERSION_CONFLICT', 'REGISTRY_KEY_TAKEN'],
      413: ['REGISTRY_BODY_TOO_LARGE'],
      422: [
        'VALIDATION_FAILED',
        'REGISTRY_AUTHOR_KEY_UNKNOWN',
        'REGISTRY_SIGNATURE_INVALID',
        'REGISTRY_BLOB_MISSING',
        'REGISTRY_BLOB_HASH_MISMATCH',
        'BUNDLE_MANIFEST_INVALID',
      ],
      500: ['REGISTRY_BLOB_CORRUPT', 'REGISTRY_INTERNAL'],
    };
    for (const [status, codes] of Object.entries(table)) {
      for (const code of codes)
        expect([code, statusFor(code as never)]).toEqual([code, Number(status)]);
    }
    expect(statusFor('FILE_WRITE_FAILED')).toBeUndefined();
  });
});
