import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RyeError } from '../errors/index.js';
import { pathExists, readTextFile, writeFileAtomic } from '../platform/index.js';
import { fingerprintOf, generateKeyPair, parsePrivateKey, publicPemOf } from './keys.js';
import type { Signer } from './sign.js';

export const PRIVATE_KEY_FILE = 'private_key.pem';
export const PUBLIC_KEY_FILE = 'public_key.pem';

export interface KeyFiles {
  readonly fingerprint: string;
  readonly publicKeyPem: string;
  readonly privateKeyPath: string;
  readonly publicKeyPath: string;
}

/**
 * Generate a key pair into `keyDir` (created 0700): the private key PKCS8 PEM
 * with mode 0600, the public key SPKI PEM. Refuses to overwrite unless `force`.
 *
 * @throws RyeError KEY_EXISTS, FILE_WRITE_FAILED
 */
export async function generateKeyFiles(
  keyDir: string,
  options: { force?: boolean } = {},
): Promise<KeyFiles> {
  const privateKeyPath = join(keyDir, PRIVATE_KEY_FILE);
  const publicKeyPath = join(keyDir, PUBLIC_KEY_FILE);
  if (!options.force && ((await pathExists(privateKeyPath)) || (await pathExists(publicKeyPath)))) {
    throw new RyeError(
      'KEY_EXISTS',
      `Cannot generate a key pair: ${privateKeyPath} exists already`,
      {
        path: privateKeyPath,
      },
    );
  }
  const pair = generateKeyPair();
  await mkdir(keyDir, { recursive: true, mode: 0o700 });
  await chmod(keyDir, 0o700);
  await writeFileAtomic(privateKeyPath, pair.privateKeyPem, { mode: 0o600 });
  await writeFileAtomic(publicKeyPath, pair.publicKeyPem, { mode: 0o644 });
  return {
    fingerprint: fingerprintOf(pair.publicKeyPem),
    publicKeyPem: pair.publicKeyPem,
    privateKeyPath,
    publicKeyPath,
  };
}

/**
 * Read the key pair in `keyDir` as a signer. The public key is derived from
 * the private key, so a swapped public_key.pem cannot mislabel signatures.
 *
 * @throws RyeError KEY_NOT_FOUND, KEY_INVALID
 */
export async function readSigner(
  keyDir: string,
): Promise<Signer & { readonly publicKeyPem: string }> {
  const privateKeyPath = join(keyDir, PRIVATE_KEY_FILE);
  if (!(await pathExists(privateKeyPath))) {
    throw new RyeError('KEY_NOT_FOUND', `Cannot sign: no private key at ${privateKeyPath}`, {
      path: privateKeyPath,
    });
  }
  const privateKey = parsePrivateKey(await readTextFile(privateKeyPath, 64 * 1024));
  const publicKeyPem = publicPemOf(privateKey);
  return { privateKey, publicKeyPem, fingerprint: fingerprintOf(publicKeyPem) };
}

/**
 * Read the public key in `keyDir`.
 * @throws RyeError KEY_NOT_FOUND, KEY_INVALID
 */
export async function readPublicKeyFile(
  keyDir: string,
): Promise<{ fingerprint: string; publicKeyPem: string }> {
  const privateKeyPath = join(keyDir, PRIVATE_KEY_FILE);
  if (!(await pathExists(privateKeyPath))) {
    throw new RyeError('KEY_NOT_FOUND', `Cannot show the key: no key pair in ${keyDir}`, {
      path: keyDir,
    });
  }
  const { publicKeyPem, fingerprint } = await readSigner(keyDir);
  return { publicKeyPem, fingerprint };
}
