import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PRIVATE_KEY_FILE,
  PUBLIC_KEY_FILE,
  generateKeyFiles,
  generateKeyPair,
  readPublicKeyFile,
  readSigner,
} from '../../src/integrity/index.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const keyDir = (): string => join(makeTempSpaces().root, 'keys');

describe('key files', () => {
  it('generates a private key only its owner can read, in a 0700 folder, and reads it back', async () => {
    const dir = keyDir();
    const files = await generateKeyFiles(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(files.privateKeyPath).mode & 0o777).toBe(0o600);
    expect(statSync(files.publicKeyPath).mode & 0o777).toBe(0o644);
    expect(await readSigner(dir)).toMatchObject({
      fingerprint: files.fingerprint,
      publicKeyPem: files.publicKeyPem,
    });
    expect(await readPublicKeyFile(dir)).toEqual({
      fingerprint: files.fingerprint,
      publicKeyPem: files.publicKeyPem,
    });
  });

  it('refuses to overwrite either half unless forced', async () => {
    const dir = keyDir();
    const first = await generateKeyFiles(dir);
    const refused = await refusal(generateKeyFiles(dir));
    expect([refused.code, refused.details]).toEqual([
      'KEY_EXISTS',
      { path: join(dir, PRIVATE_KEY_FILE) },
    ]);
    const onlyPublic = keyDir();
    await generateKeyFiles(onlyPublic);
    rmSync(join(onlyPublic, PRIVATE_KEY_FILE));
    expect((await refusal(generateKeyFiles(onlyPublic))).code).toBe('KEY_EXISTS');
    const forced = await generateKeyFiles(dir, { force: true });
    expect(forced.fingerprint).not.toBe(first.fingerprint);
    expect((await readSigner(dir)).fingerprint).toBe(forced.fingerprint);
  });

  it('takes the public key from the private one, so a swapped public_key.pem changes nothing', async () => {
    const dir = keyDir();
    const files = await generateKeyFiles(dir);
    writeFileSync(join(dir, PUBLIC_KEY_FILE), generateKeyPair().publicKeyPem);
    expect((await readSigner(dir)).fingerprint).toBe(files.fingerprint);
    expect((await readPublicKeyFile(dir)).fingerprint).toBe(files.fingerprint);
  });

  it('says KEY_NOT_FOUND without a private key, and KEY_INVALID for a damaged one', async () => {
    const dir = keyDir();
    const sign = await refusal(readSigner(dir));
    expect([sign.code, sign.details]).toEqual([
      'KEY_NOT_FOUND',
      { path: join(dir, PRIVATE_KEY_FILE) },
    ]);
    const show = await refusal(readPublicKeyFile(dir));
    expect([show.code, show.details]).toEqual(['KEY_NOT_FOUND', { path: dir }]);
    await generateKeyFiles(dir);
    writeFileSync(join(dir, PRIVATE_KEY_FILE), 'not a key\n');
    expect((await refusal(readSigner(dir))).code).toBe('KEY_INVALID');
  });
});
