import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

describe('rye trust add with a bad key file', () => {
  const cases: [string, string, RegExp][] = [
    ['truncated.pem', '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n', /not a PEM public key/],
    ['garbage.pem', 'fingerprint: nope\n[[[\n', /no -----BEGIN PUBLIC KEY----- block/],
    ['empty.pem', '', /no -----BEGIN PUBLIC KEY----- block/],
    ['damaged.txt', '-----BEGIN PUBLIC KEY-----\n!!!\n-----END PUBLIC KEY-----\n', /not a PEM/],
  ];
  for (const [name, text, why] of cases) {
    it(`reports KEY_INVALID naming ${name}, not a TOML parse error, and trusts nothing`, async () => {
      const s = makeTempSpaces();
      const file = join(s.root, name);
      writeFileSync(file, text);
      const res = await rye(['trust', 'add', file], { env: s.env });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('error[KEY_INVALID]');
      expect(res.stderr).toContain(file);
      expect(res.stderr).toMatch(why);
      expect(res.stderr).not.toMatch(/TOML|TRUST_FILE_INVALID/);
      expect(existsSync(join(s.user, '.ai', 'trusted_keys'))).toBe(false);
    });
  }

  it('refuses a private key file and says to trust the public half', async () => {
    const s = makeTempSpaces();
    expect((await rye(['keys', 'generate'], { env: s.env })).code).toBe(0);
    const res = await rye(['trust', 'add', join(s.user, '.ai/keys/private_key.pem'), '--json'], {
      env: s.env,
    });
    expect(res.code).toBe(1);
    const doc = res.json<{ error: { code: string; message: string } }>();
    expect(doc.error.code).toBe('KEY_INVALID');
    expect(doc.error.message).toContain('PRIVATE key');
    expect(doc.error.message).not.toContain(
      readFileSync(join(s.user, '.ai/keys/private_key.pem'), 'utf8').split('\n')[1] ?? '-',
    );
  });
});
