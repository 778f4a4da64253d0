import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRyeError } from '../../src/errors/index.js';
import type { ErrorCode } from '../../src/errors/index.js';
import { openStore } from '../../src/registry/server/store/index.js';
import {
  MIGRATIONS,
  MIGRATIONS_TABLE,
  type Migration,
} from '../../src/registry/server/store/migrations.js';
import type {
  PackageKey,
  RegistryStore,
  VersionRecord,
} from '../../src/registry/server/store/index.js';

/** One backend under test: how to open its store (same data every time) and reach under it. */
interface Backend {
  readonly name: 'sqlite' | 'postgres';
  open(): Promise<RegistryStore>;
  tamperBlob(sha256: string, bytes: Buffer): Promise<void>;
  migrationVersions(): Promise<number[]>;
  cleanup(): Promise<void>;
}

async function sqliteBackend(): Promise<Backend> {
  const dir = await mkdtemp(join(tmpdir(), 'rye-store-'));
  return {
    name: 'sqlite',
    open: () => openStore({ dataDir: dir }),
    tamperBlob: (sha256, bytes) => writeFile(join(dir, 'blobs', sha256.slice(0, 2), sha256), bytes),
    async migrationVersions() {
      const db = new Database(join(dir, 'registry.db'), { readonly: true });
      try {
        const rows = db
          .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
          .all();
        return rows.map((row) => row.version);
      } finally {
        db.close();
      }
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

async function postgresBackend(): Promise<Backend> {
  const database = 'postgres://127.0.0.1:5432/test';
  const schema = `rye_test_${randomBytes(6).toString('hex')}`;
  const sql = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
    const client = new pg.Client({
      host: '127.0.0.1',
      port: 5432,
      database: 'test',
      user: process.env['PGUSER'] ?? userInfo().username,
    });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    name: 'postgres',
    open: () => openStore({ dataDir: '/nonexistent', databaseUrl: `${database}?schema=${schema}` }),
    async tamperBlob(sha256, bytes) {
      await sql(`UPDATE "${schema}".blobs SET data = $2 WHERE sha256 = $1`, [sha256, bytes]);
    },
    async migrationVersions() {
      const rows = await sql<{ version: number }>(
        `SELECT version FROM "${schema}".schema_migrations`,
      );
      return rows.map((row) => row.version);
    },
    async cleanup() {
      await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
let counter = 0;
/** A name no other test in the run uses, so tests can share one store. */
const unique = (prefix: string): string => `${prefix}${++counter}`;

async function rejection(promise: Promise<unknown>, code: ErrorCode) {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!isRyeError(error, code)) throw new Error(`expected ${code}, got ${String(error)}`);
  return error;
}

describe.each([
  ['sqlite', sqliteBackend],
  ['postgres', postgresBackend],
] as const)('RegistryStore on %s', (_name, makeBackend) => {
  let backend: Backend;
  let store: RegistryStore;

  beforeAll(async () => {
    backend = await makeBackend();
    store = await backend.open();
  });
  afterAll(async () => {
    await store.close();
    await backend.cleanup();
  });

  /** Store a blob of `text` and return its address. */
  async function blob(text: string): Promise<string> {
    const bytes = Buffer.from(text);
    await store.putBlob(sha256(bytes), bytes);
    return sha256(bytes);
  }

  /** A version record (its blob stored) for a package; fields can be overridden. */
  async function version(
    key: PackageKey,
    v: string,
    over: Partial<VersionRecord> = {},
  ): Promise<VersionRecord> {
    const content = `${key.namespace}/${key.itemId}@${v}:${over.contentHash ?? ''}`;
    return {
      ...key,
      version: v,
      extension: key.kind === 'item' ? '.py' : null,
      contentHash: sha256(Buffer.from(`content ${content}`)),
      blobSha256: await blob(content),
      size: content.length,
      authorFingerprint: 'f'.repeat(16),
      authorSignature: `rye:signed:2026-01-01T00:00:00Z:${'a'.repeat(64)}:sig:fp`,
      statement: `{"version":"${v}"}`,
      statementSignature: 'c2ln',
      description: null,
      publishedAt: '2026-01-01T00:00:00.000Z',
      yanked: false,
      files: [],
      ...over,
    };
  }

  const item = (namespace = unique('ns'), itemId = 'utils/greet'): PackageKey => ({
    kind: 'item',
    itemType: 'tool',
    namespace,
    itemId,
  });

  it('reports its backend', () => {
    expect(store.backend).toBe(backend.name);
  });

  it('createAccount() stores an account and refuses a taken username', async () => {
    const username = unique('alice');
    const account = await store.createAccount(username, 'scrypt$1$2$3$s$h', '2026-01-01T00:00:00Z');
    expect(account).toEqual({
      id: expect.any(Number),
      username,
      passwordHash: 'scrypt$1$2$3$s$h',
      createdAt: '2026-01-01T00:00:00Z',
    });
    expect(await store.findAccount(username)).toEqual(account);
    expect(await store.findAccount(unique('nobody'))).toBeNull();
    const error = await rejection(
      store.createAccount(username, 'x', 'now'),
      'REGISTRY_USERNAME_TAKEN',
    );
    expect(error.details).toEqual({ username });
  });

  it('createAccount() lets exactly one of 10 concurrent sign-ups take a name', async () => {
    const username = unique('race');
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => store.createAccount(username, 'h', 'now')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected')
        expect(isRyeError(r.reason, 'REGISTRY_USERNAME_TAKEN')).toBe(true);
    }
  });

  it('findToken() returns tokens revoked or not; revokeToken() touches only its account', async () => {
    const owner = await store.createAccount(unique('owner'), 'h', 't0');
    const other = await store.createAccount(unique('other'), 'h', 't0');
    await store.createToken(owner.id, 'aaaa000011112222', `hash-${unique('t')}`, 't1');
    const hash = `hash-${unique('t')}`;
    await store.createToken(owner.id, '0123456789abcdef', hash, 't1');
    const valid = { tokenId: '0123456789abcdef', accountId: owner.id, username: owner.username };
    expect(await store.findToken(hash)).toEqual({ ...valid, createdAt: 't1', revokedAt: null });
    expect(await store.findToken('no-such-hash')).toBeNull();

    expect(await store.revokeToken(other.id, '0123456789abcdef', 't2')).toBe(false);
    expect((await store.findToken(hash))?.revokedAt).toBeNull();
    expect(await store.revokeToken(owner.id, 'ffffffffffffffff', 't2')).toBe(false);
    expect(await store.revokeToken(owner.id, '0123456789abcdef', 't3')).toBe(true);
    expect(await store.findToken(hash)).toEqual({ ...valid, createdAt: 't1', revokedAt: 't3' });
    expect(await store.revokeToken(owner.id, '0123456789abcdef', 't4')).toBe(true);
    expect((await store.findToken(hash))?.revokedAt).toBe('t3');
  });

  it('addKey() adds, reports an existing key, and refuses a key of another account', async () => {
    const alice = await store.createAccount(unique('alice'), 'h', 't0');
    const bob = await store.createAccount(unique('bob'), 'h', 't0');
    const fingerprint = unique('fp');
    const pem = '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n';
    expect(await store.addKey(alice.id, fingerprint, pem, 't1')).toBe('added');
    expect(await store.addKey(alice.id, fingerprint, pem, 't2')).toBe('exists');
    const error = await rejection(
      store.addKey(bob.id, fingerprint, pem, 't3'),
      'REGISTRY_KEY_TAKEN',
    );
    expect(error.details).toEqual({ fingerprint });
    expect(await store.listKeys(alice.id)).toEqual([
      {
        fingerprint,
        publicKey: pem,
        accountId: alice.id,
        username: alice.username,
        addedAt: 't1',
        removedAt: null,
      },
    ]);
    expect(await store.listKeys(bob.id)).toEqual([]);
  });

  it('removeKey() marks a key removed, keeps it bound, and addKey() restores it', async () => {
    const alice = await store.createAccount(unique('alice'), 'h', 't0');
    const bob = await store.createAccount(unique('bob'), 'h', 't0');
    const fingerprint = unique('fp');
    const pem = '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n';
    await store.addKey(alice.id, fingerprint, pem, 't1');
    expect(await store.removeKey(bob.id, fingerprint, 't2')).toBe('not_found');
    expect(await store.removeKey(alice.id, fingerprint, 't2')).toBe('removed');
    expect(await store.removeKey(alice.id, fingerprint, 't3')).toBe('already_removed');
    expect(await store.listKeys(alice.id)).toEqual([
      expect.objectContaining({ fingerprint, addedAt: 't1', removedAt: 't2' }),
    ]);
    await rejection(store.addKey(bob.id, fingerprint, pem, 't4'), 'REGISTRY_KEY_TAKEN');
    expect(await store.addKey(alice.id, fingerprint, pem, 't5')).toBe('added');
    expect(await store.listKeys(alice.id)).toEqual([
      expect.objectContaining({ fingerprint, addedAt: 't5', removedAt: null }),
    ]);
  });

  it('stores blobs by address, idempotently, and re-hashes them on read', async () => {
    const bytes = Buffer.from(`blob ${unique('b')}\n`);
    const address = sha256(bytes);
    expect(await store.hasBlob(address)).toBe(false);
    expect(await store.getBlob(address)).toBeNull();
    await store.putBlob(address, bytes);
    await store.putBlob(address, bytes);
    expect(await store.hasBlob(address)).toBe(true);
    expect(await store.getBlob(address)).toEqual(bytes);
    const absent = sha256(Buffer.from(unique('absent')));
    expect(await store.missingBlob([address, absent])).toBe(absent);
    expect(await store.missingBlob([address])).toBeNull();
    expect(await store.missingBlob([])).toBeNull();
    expect(await store.hasBlob('../../registry.db')).toBe(false);
    expect(await store.getBlob('../../registry.db')).toBeNull();
    await rejection(store.putBlob(absent, bytes), 'REGISTRY_BLOB_HASH_MISMATCH');
    await rejection(store.putBlob('../x', bytes), 'REGISTRY_INVALID_REQUEST');
  });

  it('getBlob() refuses bytes tampered with under the store', async () => {
    const address = await blob(`tamper ${unique('b')}`);
    const forged = Buffer.from('forged');
    await backend.tamperBlob(address, forged);
    const error = await rejection(store.getBlob(address), 'REGISTRY_BLOB_CORRUPT');
    expect(error.details).toMatchObject({ sha256: address, actual: sha256(forged) });
  });

  it('publish() creates, replays as exists, and refuses other content for a version', async () => {
    const key = item();
    const record = await version(key, '1.0.0', { description: 'Greets' });
    const created = await store.publish(record);
    expect(created).toEqual({ status: 'created', record });
    expect(await store.getVersion(key, '1.0.0')).toEqual(record);
    expect(await store.getVersion(key, '2.0.0')).toBeNull();
    expect(await store.getVersion({ ...key, itemType: 'directive' }, '1.0.0')).toBeNull();

    const replay = await store.publish({ ...record, publishedAt: '2027-01-01T00:00:00.000Z' });
    expect(replay).toEqual({ status: 'exists', record });

    const other = await version(key, '1.0.0', { contentHash: 'b'.repeat(64) });
    const error = await rejection(store.publish(other), 'REGISTRY_VERSION_CONFLICT');
    expect(error.details).toMatchObject({
      namespace: key.namespace,
      version: '1.0.0',
      existingContentHash: record.contentHash,
      attemptedContentHash: 'b'.repeat(64),
    });
  });

  it('publish() refuses a version whose blobs are not stored', async () => {
    const key = item();
    const absent = sha256(Buffer.from(unique('absent')));
    const record = await version(key, '1.0.0', { blobSha256: absent });
    const error = await rejection(store.publish(record), 'REGISTRY_BLOB_MISSING');
    expect(error.details).toEqual({ sha256: absent });
    const bundle = await version({ ...key, kind: 'bundle', itemType: null }, '1.0.0', {
      files: [{ path: 'a.md', sha256: absent, size: 1 }],
    });
    expect((await rejection(store.publish(bundle), 'REGISTRY_BLOB_MISSING')).details).toEqual({
      sha256: absent,
    });
    expect(await store.listVersions(key)).toEqual([]);
  });

  it('round-trips a bundle with its files sorted by code point', async () => {
    const key: PackageKey = {
      kind: 'bundle',
      itemType: null,
      namespace: unique('ns'),
      itemId: 'kit',
    };
    const file = async (path: string) => ({ path, sha256: await blob(`file ${path}`), size: 7 });
    const files = [
      await file('é.md'),
      await file('b/x.py'),
      await file('B.md'),
      await file('a.md'),
    ];
    const record = await version(key, '0.1.0', { files });
    const { record: stored } = await store.publish(record);
    const sorted = ['B.md', 'a.md', 'b/x.py', 'é.md'];
    expect(stored.files.map((f) => f.path)).toEqual(sorted);
    expect(await store.getVersion(key, '0.1.0')).toEqual({
      ...record,
      files: sorted.map((path) => files.find((f) => f.path === path)),
    });
    expect(await store.getVersion({ ...key, kind: 'item', itemType: 'tool' }, '0.1.0')).toBeNull();
  });

  it('listVersions() lists oldest first; setYanked() flags and clears', async () => {
    const key = item();
    await store.publish(await version(key, '2.0.0', { publishedAt: '2026-03-01T00:00:00.000Z' }));
    await store.publish(await version(key, '1.0.0', { publishedAt: '2026-02-01T00:00:00.000Z' }));
    await store.publish(await version(key, '1.0.1', { publishedAt: '2026-03-01T00:00:00.000Z' }));
    const order = async () => (await store.listVersions(key)).map((v) => [v.version, v.yanked]);
    expect(await order()).toEqual([
      ['1.0.0', false],
      ['2.0.0', false],
      ['1.0.1', false],
    ]);
    expect(await store.setYanked(key, '2.0.0', true)).toBe(true);
    expect(await store.setYanked(key, '9.9.9', true)).toBe(false);
    expect((await store.getVersion(key, '2.0.0'))?.yanked).toBe(true);
    expect((await order())[1]).toEqual(['2.0.0', true]);
    expect(await store.setYanked(key, '2.0.0', false)).toBe(true);
    expect((await order())[1]).toEqual(['2.0.0', false]);
    const [first] = await store.listVersions(key);
    expect(first).toEqual({
      version: '1.0.0',
      yanked: false,
      publishedAt: '2026-02-01T00:00:00.000Z',
      contentHash: (await store.getVersion(key, '1.0.0'))?.contentHash,
    });
  });

  it('packageIndex() takes a higher seq on every publish and yank of the package', async () => {
    const key = item();
    const other = item();
    expect(await store.packageIndex(key)).toEqual({ seq: 0, versions: [] });
    const seqs: number[] = [];
    const seq = async () => seqs.push((await store.packageIndex(key)).seq);
    await store.publish(await version(key, '1.0.0'));
    await seq();
    await store.publish(await version(key, '1.1.0'));
    await seq();
    await store.publish(await version(other, '1.0.0'));
    expect((await store.packageIndex(key)).seq).toBe(seqs[1]);
    await store.setYanked(key, '1.1.0', true);
    await seq();
    await store.setYanked(key, '1.1.0', false);
    await seq();
    expect(await store.setYanked(key, '9.9.9', true)).toBe(false);
    expect((await store.packageIndex(key)).seq).toBe(seqs[3]);
    for (let i = 1; i < seqs.length; i += 1) expect(seqs[i]).toBeGreaterThan(seqs[i - 1] as number);
    const state = await store.packageIndex(key);
    expect(state.versions).toEqual(await store.listVersions(key));
    // A replay of a published version changes nothing.
    await store.publish(await version(key, '1.0.0'));
    expect((await store.packageIndex(key)).seq).toBe(state.seq);
  });

  it('packageIndex() seqs follow commit order under concurrent yanks', async () => {
    const key = item();
    await store.publish(await version(key, '1.0.0'));
    await store.publish(await version(key, '2.0.0'));
    let last = (await store.packageIndex(key)).seq;
    for (let round = 0; round < 5; round += 1) {
      const flag = round % 2 === 0;
      await Promise.all([store.setYanked(key, '1.0.0', flag), store.setYanked(key, '2.0.0', flag)]);
      const state = await store.packageIndex(key);
      expect(state.seq).toBeGreaterThan(last);
      expect(state.versions.map((v) => v.yanked)).toEqual([flag, flag]);
      last = state.seq;
    }
  });

  it('search() returns one hit per package, skipping yanked versions', async () => {
    const namespace = unique('searchns');
    const greet = item(namespace, 'utils/greet');
    const gone = item(namespace, 'utils/gone');
    const kit: PackageKey = { kind: 'bundle', itemType: null, namespace, itemId: 'Kit' };
    const at = (day: number) => `2026-01-0${day}T00:00:00.000Z`;
    await store.publish(await version(greet, '1.0.0', { publishedAt: at(1), description: 'Old' }));
    await store.publish(
      await version(greet, '1.1.0', { publishedAt: at(2), description: 'Says HELLO' }),
    );
    await store.publish(
      await version(greet, '2.0.0', { publishedAt: at(3), description: 'Broken' }),
    );
    await store.setYanked(greet, '2.0.0', true);
    await store.publish(await version(gone, '1.0.0', { description: 'hello' }));
    await store.setYanked(gone, '1.0.0', true);
    await store.publish(await version(kit, '1.0.0', { publishedAt: at(4), description: null }));

    const all = await store.search({ text: '', namespace, limit: 50 });
    expect(all).toEqual([
      { ...kit, versions: 1, latestPublished: '1.0.0', description: null, publishedAt: at(4) },
      {
        ...greet,
        versions: 2,
        latestPublished: '1.1.0',
        description: 'Says HELLO',
        publishedAt: at(2),
      },
    ]);
    const names = async (q: object) =>
      (await store.search({ text: '', namespace, limit: 50, ...q })).map((h) => h.itemId);
    expect(await names({ text: 'hello' })).toEqual(['utils/greet']);
    expect(await names({ text: 'GREET' })).toEqual(['utils/greet']);
    expect(await names({ text: 'kit' })).toEqual(['Kit']);
    expect(await names({ text: 'broken' })).toEqual([]);
    expect(await names({ text: namespace.toUpperCase() })).toEqual(['Kit', 'utils/greet']);
    expect(await names({ kind: 'bundle' })).toEqual(['Kit']);
    expect(await names({ itemType: 'tool' })).toEqual(['utils/greet']);
    expect(await names({ itemType: 'knowledge' })).toEqual([]);
    expect(await names({ limit: 1 })).toEqual(['Kit']);
    expect(await names({ namespace: unique('empty') })).toEqual([]);
  });

  it('search() takes % and _ literally', async () => {
    const namespace = unique('likens');
    await store.publish(
      await version(item(namespace, 'a/pct'), '1.0.0', { description: '100% done' }),
    );
    await store.publish(
      await version(item(namespace, 'a/under'), '1.0.0', { description: 'snake_case' }),
    );
    await store.publish(
      await version(item(namespace, 'a/plain'), '1.0.0', { description: 'x\\y' }),
    );
    const names = async (text: string) =>
      (await store.search({ text, namespace, limit: 10 })).map((h) => h.itemId);
    expect(await names('%')).toEqual(['a/pct']);
    expect(await names('0% d')).toEqual(['a/pct']);
    expect(await names('_')).toEqual(['a/under']);
    expect(await names('e_c')).toEqual(['a/under']);
    expect(await names('\\')).toEqual(['a/plain']);
  });

  it('publish() lands 50 concurrent distinct versions of one package', async () => {
    const key = item();
    const records = await Promise.all(
      Array.from({ length: 50 }, (_, i) => version(key, `1.0.${i}`)),
    );
    const outcomes = await Promise.all(records.map((r) => store.publish(r)));
    expect(outcomes.every((o) => o.status === 'created')).toBe(true);
    const listed = await store.listVersions(key);
    expect(listed).toHaveLength(50);
    expect(new Set(listed.map((v) => v.version))).toEqual(new Set(records.map((r) => r.version)));
  });

  it('publish() creates once under 20 concurrent publishes of one version', async () => {
    const key = item();
    const record = await version(key, '1.0.0');
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.publish(record)));
    expect(outcomes.filter((o) => o.status === 'created')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'exists')).toHaveLength(19);
    for (const outcome of outcomes) expect(outcome.record).toEqual(record);
    expect(await store.listVersions(key)).toHaveLength(1);
  });

  it('reopens with its data and applies each migration once', async () => {
    const username = unique('kept');
    const key = item();
    const record = await version(key, '1.0.0');
    await store.createAccount(username, 'h', 't0');
    await store.publish(record);
    const second = await backend.open();
    try {
      expect((await second.findAccount(username))?.username).toBe(username);
      expect(await second.getVersion(key, '1.0.0')).toEqual(record);
      expect(await second.getBlob(record.blobSha256)).toEqual(
        await store.getBlob(record.blobSha256),
      );
    } finally {
      await second.close();
    }
    expect(await backend.migrationVersions()).toEqual([1, 2, 3]);
  });

  it('migrates once when two instances open a fresh store at the same time', async () => {
    const fresh = await makeBackend();
    try {
      const stores = await Promise.all([fresh.open(), fresh.open()]);
      const username = unique('both');
      await stores[0].createAccount(username, 'h', 't0');
      expect((await stores[1].findAccount(username))?.username).toBe(username);
      await Promise.all(stores.map((s) => s.close()));
      expect(await fresh.migrationVersions()).toEqual([1, 2, 3]);
    } finally {
      await fresh.cleanup();
    }
  });
});

describe('migration 2 (package index seq) on a SQLite store made before it', () => {
  it('keeps the published rows, counts them as changed at 1, and bumps from there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rye-store-v1-'));
    try {
      const db = new Database(join(dir, 'registry.db'));
      db.exec(MIGRATIONS_TABLE);
      db.exec((MIGRATIONS[0] as Migration).sqlite);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (1, ?)').run('t0');
      db.prepare(
        `INSERT INTO versions (kind, item_type, namespace, item_id, version, extension,
           content_hash, blob_sha256, size, author_fingerprint, author_signature, statement,
           statement_signature, description, search_text, published_at, yanked)
         VALUES ('item', 'tool', 'old', 'utils/greet', '1.0.0', '.py', ?, ?, 1, ?, 's', '{}',
           'c2ln', NULL, 'old', '2025-01-01T00:00:00Z', 0)`,
      ).run('a'.repeat(64), 'b'.repeat(64), 'f'.repeat(16));
      db.close();
      const store = await openStore({ dataDir: dir });
      try {
        const key: PackageKey = {
          kind: 'item',
          itemType: 'tool',
          namespace: 'old',
          itemId: 'utils/greet',
        };
        expect((await store.packageIndex(key)).seq).toBe(1);
        expect(await store.setYanked(key, '1.0.0', true)).toBe(true);
        expect((await store.packageIndex(key)).seq).toBe(2);
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('openStore()', () => {
  it('refuses a database URL of another scheme without echoing it', async () => {
    const error = await rejection(
      openStore({ dataDir: tmpdir(), databaseUrl: 'mysql://root:secret@db/reg' }),
      'USAGE_INVALID_ARGUMENT',
    );
    expect(error.message).not.toContain('secret');
    expect(error.details).toEqual({ scheme: 'mysql' });
  });

  it('refuses a schema name that is not a lowercase identifier', async () => {
    const url = 'postgres://127.0.0.1:5432/test?schema=Bad-Name';
    await rejection(openStore({ dataDir: tmpdir(), databaseUrl: url }), 'USAGE_INVALID_ARGUMENT');
  });
});
