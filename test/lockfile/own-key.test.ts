import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PUBLIC_KEY_FILE,
  generateKeyFiles,
  readSigner,
  signText,
  trustSetOf,
  type TrustedKey,
} from '../../src/integrity/index.js';
import { keyDir, type Spaces } from '../../src/items/index.js';
import { ownTrust, readOwnKey, signedByOwnKey } from '../../src/lockfile/index.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

function spacesOf(): { spaces: Spaces; root: string } {
  const t = makeTempSpaces();
  return { spaces: { project: t.project, user: t.user, system: t.system }, root: t.root };
}

describe('readOwnKey()', () => {
  it('reads <user>/.ai/keys/public_key.pem with its fingerprint', async () => {
    const { spaces } = spacesOf();
    const { fingerprint } = await generateKeyFiles(keyDir(spaces));
    expect(readOwnKey(spaces)).toMatchObject({
      fingerprint,
      source: join(keyDir(spaces), PUBLIC_KEY_FILE),
    });
  });

  it('is null when the user has no key', () => {
    expect(readOwnKey(spacesOf().spaces)).toBeNull();
  });

  it('is null when the keys folder is a file, not a folder (ENOTDIR)', () => {
    const { spaces } = spacesOf();
    mkdirSync(join(keyDir(spaces), '..'), { recursive: true });
    writeFileSync(keyDir(spaces), 'not a folder');
    expect(readOwnKey(spaces)).toBeNull();
  });

  it('fails closed on a key file it cannot read, rather than running without the check', async () => {
    const { spaces } = spacesOf();
    await generateKeyFiles(keyDir(spaces));
    const path = join(keyDir(spaces), PUBLIC_KEY_FILE);
    rmSync(path);
    mkdirSync(path);
    const folder = await refusal(Promise.resolve().then(() => readOwnKey(spaces)));
    expect([folder.code, folder.details]).toEqual(['FILE_UNREADABLE', { path }]);
    rmSync(path, { recursive: true });
    writeFileSync(path, 'x'.repeat(64 * 1024 + 1));
    expect((await refusal(Promise.resolve().then(() => readOwnKey(spaces)))).code).toBe(
      'FILE_TOO_LARGE',
    );
  });

  it('fails closed on a public key file that is not a key (KEY_INVALID)', async () => {
    const { spaces } = spacesOf();
    await generateKeyFiles(keyDir(spaces));
    writeFileSync(join(keyDir(spaces), PUBLIC_KEY_FILE), 'not a key\n');
    expect((await refusal(Promise.resolve().then(() => readOwnKey(spaces)))).code).toBe(
      'KEY_INVALID',
    );
  });
});

describe('signedByOwnKey() and ownTrust()', () => {
  it('accepts only a signature by the user’s own key', async () => {
    const { spaces, root } = spacesOf();
    await generateKeyFiles(keyDir(spaces));
    await generateKeyFiles(join(root, 'other'));
    const own = readOwnKey(spaces) as TrustedKey;
    const text = '{"a":1}\n';
    const sign = async (dir: string) =>
      signText(text, { itemType: 'tool', extension: '.json', signer: await readSigner(dir) }).text;
    expect(signedByOwnKey(await sign(keyDir(spaces)), 'x.json', own)).toBe(true);
    expect(signedByOwnKey(await sign(join(root, 'other')), 'x.json', own)).toBe(false);
    expect(signedByOwnKey(text, 'x.json', own)).toBe(false);
  });

  it('keeps the user’s key only when the run’s trust set trusts that very key', async () => {
    const { spaces, root } = spacesOf();
    await generateKeyFiles(keyDir(spaces));
    const own = readOwnKey(spaces) as TrustedKey;
    await generateKeyFiles(join(root, 'other'));
    expect([...ownTrust(trustSetOf([own]), own).keys()]).toEqual([own.fingerprint]);
    expect(ownTrust(new Map(), own).size).toBe(0);
    expect(ownTrust(trustSetOf([own]), null).size).toBe(0);
    // A different key filed under the user's fingerprint is not the user's key.
    const impostor = { ...own, publicKeyPem: (await readSigner(join(root, 'other'))).publicKeyPem };
    expect(ownTrust(new Map([[own.fingerprint, impostor]]), own).size).toBe(0);
  });
});
