import { describe, expect, it } from 'vitest';
import {
  apiTokenHash,
  hashPassword,
  newApiToken,
  sha256Hex,
  verifyPassword,
} from '../../src/integrity/index.js';

describe('hashPassword()', () => {
  it('writes scrypt$16384$8$1$salt$hash and verifies the same password only', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsf', stored)).toBe(false);
  });

  it('salts: two hashes of one password differ', async () => {
    expect(await hashPassword('pw-123456')).not.toBe(await hashPassword('pw-123456'));
  });
});

describe('verifyPassword()', () => {
  it.each([
    '',
    'scrypt',
    'bcrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    'scrypt$16383$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    'scrypt$1073741824$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    'scrypt$16384$0$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    'scrypt$16384$8$1$!!$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAA',
  ])('returns false for the malformed stored string %j', async (stored) => {
    expect(await verifyPassword('anything', stored)).toBe(false);
  });
});

describe('newApiToken()', () => {
  it('makes rye_ secrets, 16-hex ids and the sha256 of the secret', () => {
    const token = newApiToken();
    expect(token.secret).toMatch(/^rye_[A-Za-z0-9_-]{43}$/);
    expect(token.tokenId).toMatch(/^[0-9a-f]{16}$/);
    expect(token.hash).toBe(sha256Hex(token.secret));
    expect(apiTokenHash(token.secret)).toBe(token.hash);
    expect(newApiToken().secret).not.toBe(token.secret);
  });
});
