/**
 * `DELETE /v1/keys/:fingerprint` (issue 12, `rye registry keys remove`): the
 * key signs no new push, what it signed stays served, and its fingerprint
 * stays the account's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/registry/server/store/index.js';
import { MIGRATIONS, MIGRATIONS_TABLE } from '../../../src/registry/server/store/migrations.js';
import { makeSigner } from '../../helpers/keys.js';
import {
  expectRefused,
  makeAuthor,
  makeRegistry,
  registerKey,
  toolPush,
  type Backend,
  type TestRegistry,
} from './fixtures.js';

describe.each(['sqlite', 'postgres'] as Backend[])('author key removal on %s', (backend) => {
  let registry: TestRegistry;
  beforeEach(async () => {
    registry = await makeRegistry({ backend });
  });
  afterEach(async () => {
    await registry.close();
  });

  const keysOf = async (token: string): Promise<string[]> =>
    (
      (await registry.call('GET', '/v1/whoami', { token })).json.keys as { fingerprint: string }[]
    ).map((k) => k.fingerprint);

  it('refuses new pushes signed by a removed key, and keeps serving what it signed', async () => {
    const alice = await makeAuthor(registry);
    const fp = alice.signer.fingerprint;
    const first = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: toolPush(alice.signer, 'alice'),
    });
    expect(first.status).toBe(201);

    const removed = await registry.call('DELETE', `/v1/keys/${fp}`, { token: alice.token });
    expect(removed.status).toBe(200);
    expect(removed.json).toEqual({ fingerprint: fp, status: 'removed' });
    expect(await keysOf(alice.token)).toEqual([]);
    const again = await registry.call('DELETE', `/v1/keys/${fp}`, { token: alice.token });
    expect(again.json).toEqual({ fingerprint: fp, status: 'already_removed' });

    const refused = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: toolPush(alice.signer, 'alice', { version: '1.1.0' }),
    });
    expectRefused(refused, 422, 'REGISTRY_AUTHOR_KEY_UNKNOWN');
    expect(refused.json.error.message).toContain('which you removed from your account');

    const served = await registry.call('GET', '/v1/items/tool/alice/utils/greet?version=1.0.0');
    expect(served.status).toBe(200);
    expect(served.json.author.fingerprint).toBe(fp);
  });

  it('keeps the fingerprint bound to the account, and registering it again restores it', async () => {
    const alice = await makeAuthor(registry);
    await registry.call('DELETE', `/v1/keys/${alice.signer.fingerprint}`, { token: alice.token });
    const bob = await makeAuthor(registry, 'bob');
    const stolen = await registerKey(registry, bob.token, 'bob', alice.signer, alice.publicKeyPem);
    expectRefused(stolen, 409, 'REGISTRY_KEY_TAKEN');

    const back = await registerKey(
      registry,
      alice.token,
      'alice',
      alice.signer,
      alice.publicKeyPem,
    );
    expect(back.status).toBe(201);
    expect(await keysOf(alice.token)).toEqual([alice.signer.fingerprint]);
    const pushed = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: toolPush(alice.signer, 'alice'),
    });
    expect(pushed.status).toBe(201);
  });

  it("answers 404 for another account's key and 400 for a malformed fingerprint", async () => {
    const alice = await makeAuthor(registry);
    const bob = await makeAuthor(registry, 'bob');
    const other = await registry.call('DELETE', `/v1/keys/${alice.signer.fingerprint}`, {
      token: bob.token,
    });
    expectRefused(other, 404, 'REGISTRY_NOT_FOUND');
    expect(await keysOf(alice.token)).toEqual([alice.signer.fingerprint]);
    const bad = await registry.call('DELETE', '/v1/keys/NOT-A-FP', { token: bob.token });
    expectRefused(bad, 400, 'REGISTRY_INVALID_REQUEST');
    const anonymous = await registry.call('DELETE', `/v1/keys/${alice.signer.fingerprint}`);
    expect(anonymous.status).toBe(401);
  });
});

describe('REGISTRY_AUTHOR_KEY_UNKNOWN says what is registered', () => {
  let registry: TestRegistry;
  beforeEach(async () => {
    registry = await makeRegistry();
  });
  afterEach(async () => {
    await registry.close();
  });

  it('tells an author with a registered key that the item is signed by another key', async () => {
    const alice = await makeAuthor(registry);
    const other = makeSigner('old-key');
    const refused = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: toolPush(other.signer, 'alice'),
    });
    expectRefused(refused, 422, 'REGISTRY_AUTHOR_KEY_UNKNOWN');
    const message = refused.json.error.message as string;
    expect(message).toContain(`signed by key ${other.signer.fingerprint}, not by a key registered`);
    expect(message).toContain(alice.signer.fingerprint);
    expect(message).toContain('re-sign');
  });

  it('tells an author without keys to register one', async () => {
    const session = await registry.call('POST', '/v1/accounts', {
      body: { username: 'carol', password: 'password-123' },
    });
    const { signer } = makeSigner('carol');
    const refused = await registry.call('POST', '/v1/items', {
      token: session.json.token,
      body: toolPush(signer, 'carol'),
    });
    expectRefused(refused, 422, 'REGISTRY_AUTHOR_KEY_UNKNOWN');
    expect(refused.json.error.message).toContain('has no registered key');
  });
});

describe('migration 3 (author key removal) on a SQLite store made before it', () => {
  it('keeps every registered key active', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rye-store-v2-'));
    try {
      const db = new Database(join(dir, 'registry.db'));
      db.exec(MIGRATIONS_TABLE);
      for (const m of MIGRATIONS.slice(0, 2)) {
        db.exec(m.sqlite);
        db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(
          m.version,
          't0',
        );
      }
      db.prepare(
        "INSERT INTO accounts (username, password_hash, created_at) VALUES ('old', 'h', 't0')",
      ).run();
      db.prepare(
        "INSERT INTO author_keys (fingerprint, account_id, public_key, added_at) VALUES (?, 1, 'pem', 't1')",
      ).run('f'.repeat(16));
      db.close();
      const store = await openStore({ dataDir: dir });
      try {
        expect(await store.listKeys(1)).toEqual([
          expect.objectContaining({ fingerprint: 'f'.repeat(16), removedAt: null }),
        ]);
        expect(await store.removeKey(1, 'f'.repeat(16), 't2')).toBe('removed');
        expect(await store.removeKey(1, 'e'.repeat(16), 't2')).toBe('not_found');
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
