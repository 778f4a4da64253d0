import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MAX_TRUST_FILE_BYTES,
  formatTrustToml,
  generateKeyPair,
  loadExplicitTrust,
  loadTrustStore,
  mergeLoadedTrust,
  parsePublicKey,
  parseTrustSnapshot,
  readTrustFile,
  readTrustSnapshot,
  trustSnapshotDigest,
} from '../../src/integrity/index.js';
import { makeTempSpaces } from '../helpers/temp-space.js';
import { refusal } from '../helpers/refusal.js';

function keyToml(owner = 'ada'): { text: string; fingerprint: string; pem: string } {
  const pem = generateKeyPair().publicKeyPem;
  const info = parsePublicKey(pem);
  return {
    text: formatTrustToml({ ...info, owner, attestation: '' }),
    fingerprint: info.fingerprint,
    pem,
  };
}

function folder(files: Record<string, string | Buffer>): string {
  const dir = join(makeTempSpaces().root, 'trusted_keys');
  mkdirSync(dir, { recursive: true });
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  return dir;
}

describe('readTrustSnapshot() and trustSnapshotDigest()', () => {
  it('reads the .toml files in name order, an unreadable one kept with its error', async () => {
    const big = Buffer.alloc(MAX_TRUST_FILE_BYTES + 1, 0x61);
    const dir = folder({ 'c.toml': 'c', 'a.toml': 'a', 'b.toml': big, 'notes.txt': 'x' });
    mkdirSync(join(dir, 'd.toml'));
    const snapshot = await readTrustSnapshot(dir);
    expect(snapshot.files.map((f) => [f.name, f.bytes?.toString() ?? null, f.error?.code])).toEqual(
      [
        ['a.toml', 'a', undefined],
        ['b.toml', null, 'FILE_TOO_LARGE'],
        ['c.toml', 'c', undefined],
        ['d.toml', null, 'FILE_UNREADABLE'],
      ],
    );
    // name NUL length NUL bytes, per file; -1 and no bytes for an unreadable one.
    const expected = createHash('sha256')
      .update('a.toml\u00001\u0000a')
      .update('b.toml\u0000-1\u0000')
      .update('c.toml\u00001\u0000c')
      .update('d.toml\u0000-1\u0000')
      .digest('hex');
    expect(trustSnapshotDigest(snapshot)).toBe(expected);
  });

  it('sorts by name whatever order the folder lists them in, so the digest is stable', async () => {
    const names = [...'qwertyuiopasdfghjklzxcvbnm'].map((c) => `${c}.toml`);
    const dir = folder(Object.fromEntries(names.map((n) => [n, n])));
    const snapshot = await readTrustSnapshot(dir);
    expect(snapshot.files.map((f) => f.name)).toEqual([...names].sort());
    const again = folder(Object.fromEntries([...names].reverse().map((n) => [n, n])));
    expect(trustSnapshotDigest(await readTrustSnapshot(again))).toBe(trustSnapshotDigest(snapshot));
  });

  it('reads a missing folder as empty, with the digest of nothing', async () => {
    const snapshot = await readTrustSnapshot('/nonexistent/rye-trust');
    expect(snapshot.files).toEqual([]);
    expect(trustSnapshotDigest(snapshot)).toBe(createHash('sha256').digest('hex'));
  });
});

describe('loadTrustStore()', () => {
  it('trusts the keys that parse, warns about the others, and merges stores in order', async () => {
    const good = keyToml('ada');
    const project = folder({
      'good.toml': good.text,
      'bad.toml': 'fingerprint = ',
      'binary.toml': Buffer.from([0x66, 0, 0x6f]),
      'huge.toml': Buffer.alloc(MAX_TRUST_FILE_BYTES + 1, 0x23),
    });
    const user = folder({
      'same.toml': keyToml('ada').text.replace('owner = "ada"', 'owner = "x"'),
    });
    const loaded = await loadTrustStore([
      { space: 'project', dir: project },
      { space: 'user', dir: user },
    ]);
    expect(loaded.keys.map((k) => [k.space, k.owner])).toEqual([
      ['project', 'ada'],
      ['user', 'x'],
    ]);
    expect(loaded.trust.get(good.fingerprint)?.source).toBe(join(project, 'good.toml'));
    expect(loaded.warnings.map((w) => [w.path.slice(project.length + 1), w.code])).toEqual([
      ['bad.toml', 'TRUST_FILE_INVALID'],
      ['binary.toml', 'FILE_BINARY'],
      ['huge.toml', 'FILE_TOO_LARGE'],
    ]);
    expect(mergeLoadedTrust([loaded, loaded]).keys).toHaveLength(4);
  });

  it('reads a snapshot entry with neither bytes nor an error as an empty file: a warning, no key', () => {
    const parsed = parseTrustSnapshot(
      { dir: '/t', files: [{ name: 'empty.toml', bytes: null, error: null }] },
      'user',
    );
    expect(parsed.keys).toEqual([]);
    expect(parsed.warnings).toMatchObject([{ path: '/t/empty.toml', code: 'TRUST_FILE_INVALID' }]);
  });
});

describe('readTrustFile() and loadExplicitTrust()', () => {
  it('reads a TOML key, or a bare PEM named after its file, with an owner when given', async () => {
    const toml = keyToml('ada');
    const pem = generateKeyPair().publicKeyPem;
    const dir = folder({ 'a.toml': toml.text, 'bob.pem': pem, 'carol.txt': pem });
    expect(await readTrustFile(join(dir, 'a.toml'))).toMatchObject({ owner: 'ada' });
    expect(await readTrustFile(join(dir, 'a.toml'), 'renamed')).toMatchObject({ owner: 'renamed' });
    expect(await readTrustFile(join(dir, 'bob.pem'))).toMatchObject({
      owner: 'bob',
      fingerprint: parsePublicKey(pem).fingerprint,
      attestation: '',
      source: join(dir, 'bob.pem'),
    });
    // No .pem extension, but a PEM block and no TOML fingerprint: still a PEM key.
    expect(await readTrustFile(join(dir, 'carol.txt'), 'carol')).toMatchObject({ owner: 'carol' });
  });

  it('refuses a private key, a text without a public key block, and a damaged key, naming the file', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const dir = folder({
      'secret.pem': privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      'empty.pem': 'nothing here\n',
      'broken.pem': '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n',
    });
    const secret = await refusal(readTrustFile(join(dir, 'secret.pem')));
    expect([secret.code, secret.message]).toEqual([
      'KEY_INVALID',
      expect.stringContaining('it holds a PRIVATE key'),
    ]);
    const empty = await refusal(readTrustFile(join(dir, 'empty.pem')));
    expect([empty.code, empty.message]).toEqual([
      'KEY_INVALID',
      expect.stringContaining('no -----BEGIN PUBLIC KEY----- block'),
    ]);
    const broken = await refusal(readTrustFile(join(dir, 'broken.pem')));
    expect(broken.code).toBe('KEY_INVALID');
    expect(broken.message).toBe(`Cannot trust ${join(dir, 'broken.pem')}: not a PEM public key`);
    expect(broken.details).toMatchObject({ path: join(dir, 'broken.pem') });
  });

  it('reads the .toml and .pem files of a folder in name order, and a single file', async () => {
    const a = keyToml('ada');
    const b = generateKeyPair().publicKeyPem;
    const dir = folder({ 'z.toml': a.text, 'b.pem': b, 'readme.md': 'not a key' });
    const trust = await loadExplicitTrust([dir]);
    expect([...trust.values()].map((k) => k.owner)).toEqual(['b', 'ada']);
    const one = await loadExplicitTrust([join(dir, 'z.toml')]);
    expect([...one.keys()]).toEqual([a.fingerprint]);
  });

  it('fails on a path that does not exist, and on a bad file it was named', async () => {
    const missing = await refusal(loadExplicitTrust(['/nonexistent/rye-keys']));
    expect([missing.code, missing.details]).toEqual([
      'FILE_UNREADABLE',
      { path: '/nonexistent/rye-keys' },
    ]);
    const dir = folder({ 'bad.toml': 'x = 1' });
    expect((await refusal(loadExplicitTrust([dir]))).code).toBe('TRUST_FILE_INVALID');
  });
});
