import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MAX_TRUST_FILE_BYTES,
  formatTrustToml,
  generateKeyPair,
  loadTrustStore,
  parseTrustToml,
  signText,
  verifyFile,
  verifyFileSync,
  verifyText,
} from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const { signer, trust } = makeSigner();
const PY = { itemType: 'tool', extension: '.py', trust } as const;
const signedPy = signText('print("hi")\n', { itemType: 'tool', extension: '.py', signer }).text;
const line = signedPy.split('\n')[0] ?? '';

describe('verifyFile() refuses unreadable input with its own code', () => {
  it('FILE_UNREADABLE for a missing file, verdict unreadable (never "unsigned")', async () => {
    const spaces = makeTempSpaces();
    const result = await verifyFile(join(spaces.project, 'nope.py'), 'tool', trust);
    expect(result).toMatchObject({ ok: false, verdict: 'unreadable', code: 'FILE_UNREADABLE' });
  });

  it('FILE_UNREADABLE for a folder', async () => {
    const spaces = makeTempSpaces();
    mkdirSync(join(spaces.project, 'dir.py'));
    expect((await verifyFile(join(spaces.project, 'dir.py'), 'tool', trust)).code).toBe(
      'FILE_UNREADABLE',
    );
  });

  it('FILE_BINARY for a file with NUL bytes', async () => {
    const spaces = makeTempSpaces();
    const path = spaces.write('bin.py', Buffer.from([0x23, 0x20, 0x00, 0x0a]));
    expect(await verifyFile(path, 'tool', trust)).toMatchObject({
      verdict: 'unreadable',
      code: 'FILE_BINARY',
    });
  });

  it('FILE_BINARY for invalid UTF-8', async () => {
    const spaces = makeTempSpaces();
    const path = spaces.write(
      'latin1.py',
      Buffer.concat([Buffer.from(signedPy), Buffer.from([0xff, 0xfe, 0x0a])]),
    );
    expect((await verifyFile(path, 'tool', trust)).code).toBe('FILE_BINARY');
  });

  it('FILE_TOO_LARGE for a file over the 8 MiB cap', async () => {
    const spaces = makeTempSpaces();
    const path = spaces.write('big.py', signedPy + '#'.repeat(8 * 1024 * 1024));
    expect(await verifyFile(path, 'tool', trust)).toMatchObject({
      verdict: 'unreadable',
      code: 'FILE_TOO_LARGE',
    });
  });

  it('verifyFileSync() gives the same verdicts as verifyFile() for every unreadable file', async () => {
    const spaces = makeTempSpaces();
    mkdirSync(join(spaces.project, 'dir.py'));
    const paths = [
      join(spaces.project, 'nope.py'),
      join(spaces.project, 'dir.py'),
      spaces.write('bin.py', Buffer.from([0x23, 0x20, 0x00, 0x0a])),
      spaces.write('big.py', signedPy + '#'.repeat(8 * 1024 * 1024 + 1)),
      spaces.write('good.py', signedPy),
      spaces.write('tampered.py', signedPy + 'print("more")\n'),
    ];
    for (const path of paths)
      expect(verifyFileSync(path, 'tool', trust), path).toEqual(
        await verifyFile(path, 'tool', trust),
      );
  });

  it('ITEM_UNSUPPORTED_EXTENSION for a tool extension with no signature format', () => {
    expect(verifyText(signedPy, { ...PY, extension: '.exe' })).toMatchObject({
      verdict: 'unreadable',
      code: 'ITEM_UNSUPPORTED_EXTENSION',
    });
    expect(() => signText('x', { itemType: 'tool', extension: '.png', signer })).toThrow(
      expect.objectContaining({ code: 'ITEM_UNSUPPORTED_EXTENSION' }),
    );
  });
});

describe('verifyText() refuses signature lines that are not exactly one, in place, well formed', () => {
  it('INTEGRITY_SIGNATURE_MISPLACED (verdict unsigned) for a signature below line 1', () => {
    const moved = `"""doc"""\n${signedPy}`;
    expect(verifyText(moved, PY)).toMatchObject({
      verdict: 'unsigned',
      code: 'INTEGRITY_SIGNATURE_MISPLACED',
      line: 2,
    });
  });

  it('INTEGRITY_SIGNATURE_MISPLACED for a // line after a shebang in a .ts tool', () => {
    const signed = signText('console.log(1)\n', {
      itemType: 'tool',
      extension: '.ts',
      signer,
    }).text;
    const moved = `#!/usr/bin/env node\n${signed}`;
    expect(verifyText(moved, { ...PY, extension: '.ts' }).code).toBe(
      'INTEGRITY_SIGNATURE_MISPLACED',
    );
  });

  it('INTEGRITY_SIGNATURE_MISPLACED for an indented signature line', () => {
    expect(verifyText(`  ${signedPy}`, PY).code).toBe('INTEGRITY_SIGNATURE_MISPLACED');
    expect(verifyText(`x = 1\n  ${signedPy}`, PY).code).toBe('INTEGRITY_SIGNATURE_MISPLACED');
  });

  it('INTEGRITY_UNSIGNED for a file without any signature line', () => {
    expect(verifyText('print(1)\n', PY)).toMatchObject({
      verdict: 'unsigned',
      code: 'INTEGRITY_UNSIGNED',
      line: null,
    });
  });

  it('INTEGRITY_DUPLICATE_SIGNATURE (verdict malformed) for two signature lines', () => {
    const twice = `${line}\n${signedPy}`;
    expect(verifyText(twice, PY)).toMatchObject({
      verdict: 'malformed',
      code: 'INTEGRITY_DUPLICATE_SIGNATURE',
      line: 2,
    });
    const later = `${signedPy}x = 1\n${line}\n`;
    expect(verifyText(later, PY)).toMatchObject({ code: 'INTEGRITY_DUPLICATE_SIGNATURE', line: 4 });
  });

  it('does not mistake a documented placeholder line for a second signature', () => {
    const body = 'print(1)\n# rye:signed:TIMESTAMP:HASH:SIG:FP\n';
    const signed = signText(body, { itemType: 'tool', extension: '.py', signer }).text;
    expect(verifyText(signed, PY).verdict).toBe('ok');
  });

  const [, timestamp = '', hash = '', sig = '', fp = ''] =
    /rye:signed:(\S+Z):([0-9a-f]{64}):(\S+):([0-9a-f]{16})$/.exec(line) ?? [];
  const malformed: [string, string][] = [
    ['a short hash', `# rye:signed:${timestamp}:${hash.slice(1)}:${sig}:${fp}`],
    ['an upper-case hash', `# rye:signed:${timestamp}:${hash.toUpperCase()}:${sig}:${fp}`],
    ['a timestamp without seconds', `# rye:signed:${timestamp.slice(0, 16)}Z:${hash}:${sig}:${fp}`],
    ['a non-UTC timestamp', `# rye:signed:${timestamp.slice(0, 19)}+00:00:${hash}:${sig}:${fp}`],
    [
      'a signature with a non-base64url character',
      `# rye:signed:${timestamp}:${hash}:${sig.replace(/^./, '+')}:${fp}`,
    ],
    ['a truncated signature', `# rye:signed:${timestamp}:${hash}:${sig.slice(4)}:${fp}`],
    ['a 15-character fingerprint', `# rye:signed:${timestamp}:${hash}:${sig}:${fp.slice(1)}`],
    ['trailing garbage', `# rye:signed:${timestamp}:${hash}:${sig}:${fp} trailing`],
    ['a missing field', `# rye:signed:${timestamp}:${hash}:${fp}`],
    ['a bad provenance suffix', `# rye:signed:${timestamp}:${hash}:${sig}:${fp}|not provenance`],
  ];
  for (const [what, badLine] of malformed) {
    it(`INTEGRITY_MALFORMED_SIGNATURE for ${what}`, () => {
      const text = `${badLine}\nprint("hi")\n`;
      expect(verifyText(text, PY)).toMatchObject({
        verdict: 'malformed',
        code: 'INTEGRITY_MALFORMED_SIGNATURE',
        line: 1,
      });
    });
  }

  it('INTEGRITY_MALFORMED_SIGNATURE for a knowledge line missing its closing -->', () => {
    const signed = signText('body\n', { itemType: 'knowledge', extension: '.md', signer }).text;
    const broken = signed.replace(' -->', '');
    expect(verifyText(broken, { itemType: 'knowledge', extension: '.md', trust }).code).toBe(
      'INTEGRITY_MALFORMED_SIGNATURE',
    );
  });

  it('malformed JSON in a .json tool is malformed, not unsigned', () => {
    expect(verifyText('{"a": 1,}', { ...PY, extension: '.json' })).toMatchObject({
      verdict: 'malformed',
    });
    expect(verifyText('{"a": 1, "a": 2}', { ...PY, extension: '.json' }).verdict).toBe('malformed');
    expect(verifyText('{"_signature": 7}', { ...PY, extension: '.json' }).verdict).toBe(
      'malformed',
    );
  });
});

describe('trusted-key TOML', () => {
  const pair = generateKeyPair();
  const good = formatTrustToml({
    fingerprint: makeFp(pair.publicKeyPem),
    owner: 'alice',
    attestation: '',
    publicKeyPem: pair.publicKeyPem,
  });

  it('round-trips the documented layout', () => {
    const key = parseTrustToml(good, 'alice.toml');
    expect(key.owner).toBe('alice');
    expect(formatTrustToml(key)).toBe(good);
    expect(good).toMatch(
      /^fingerprint = "[0-9a-f]{16}"\nowner = "alice"\nattestation = ""\n\n\[public_key\]\npem = """\n-----BEGIN PUBLIC KEY-----\n/,
    );
  });

  it('TRUST_FINGERPRINT_MISMATCH when the recorded fingerprint is not the key’s', () => {
    const lying = good.replace(/fingerprint = "[0-9a-f]{16}"/, 'fingerprint = "0000000000000000"');
    expect(() => parseTrustToml(lying, 'lying.toml')).toThrow(
      expect.objectContaining({ code: 'TRUST_FINGERPRINT_MISMATCH' }),
    );
  });

  it('loadTrustStore() skips a mismatching file with a warning and keeps the good ones', async () => {
    const spaces = makeTempSpaces();
    const dir = join(spaces.user, '.ai', 'trusted_keys');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'good.toml'), good);
    writeFileSync(
      join(dir, 'bad.toml'),
      good.replace(/fingerprint = "[0-9a-f]{16}"/, 'fingerprint = "0000000000000000"'),
    );
    writeFileSync(join(dir, 'broken.toml'), 'fingerprint = ');
    const loaded = await loadTrustStore([{ space: 'user', dir }]);
    expect([...loaded.trust.keys()]).toEqual([makeFp(pair.publicKeyPem)]);
    expect(loaded.warnings.map((w) => w.code).sort()).toEqual([
      'TRUST_FILE_INVALID',
      'TRUST_FINGERPRINT_MISMATCH',
    ]);
  });

  it('TRUST_FILE_INVALID for 1 MB of TOML tables, before the TOML parser reads it', () => {
    const hostile = Array.from({ length: 150_000 }, (_, i) => `[t${i}]`).join('\n');
    expect(hostile.length).toBeGreaterThan(1024 * 1024);
    expect(() => parseTrustToml(hostile, 'big.toml')).toThrow(
      expect.objectContaining({
        code: 'TRUST_FILE_INVALID',
        message: expect.stringMatching(/over the cap of 65536$/),
      }),
    );
    // Just under the cap, a padded key file still reads.
    const padded = `${'# padding\n'.repeat((MAX_TRUST_FILE_BYTES - good.length - 20) / 10)}${good}`;
    expect(Buffer.byteLength(padded)).toBeLessThanOrEqual(MAX_TRUST_FILE_BYTES);
    expect(parseTrustToml(padded, 'padded.toml').owner).toBe('alice');
  });

  it('TRUST_FILE_INVALID for a TOML document without the key table', () => {
    expect(() => parseTrustToml('fingerprint = "abc"\nowner = "x"\n', 'x.toml')).toThrow(
      expect.objectContaining({ code: 'TRUST_FILE_INVALID' }),
    );
  });
});

/** Independent of the code under test: SHA-256 over the PEM text, first 16 hex. */
function makeFp(pem: string): string {
  return createHash('sha256').update(pem).digest('hex').slice(0, 16);
}
