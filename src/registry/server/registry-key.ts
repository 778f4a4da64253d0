import { readFile, stat } from 'node:fs/promises';
import { RyeError } from '../../errors/index.js';
import {
  fingerprintOf,
  generateKeyPair,
  parsePrivateKey,
  publicPemOf,
  type Signer,
} from '../../integrity/index.js';
import { messageOf, writeFileAtomic } from '../../platform/index.js';

/** The registry's own Ed25519 key: it attests every published version. */
export interface RegistryKey {
  readonly signer: Signer;
  /** SPKI PEM with its final newline, as published at `/.well-known/rye-registry.json`. */
  readonly publicKeyPem: string;
  readonly fingerprint: string;
}

/** The registry key file's name inside the data folder. */
export const REGISTRY_KEY_FILE = 'registry-key.pem';

/** Build a RegistryKey from PKCS8 PEM text. @throws RyeError KEY_INVALID */
export function registryKeyOf(privateKeyPem: string): RegistryKey {
  const privateKey = parsePrivateKey(privateKeyPem);
  const publicKeyPem = publicPemOf(privateKey);
  const fingerprint = fingerprintOf(publicKeyPem);
  return { signer: { privateKey, fingerprint }, publicKeyPem, fingerprint };
}

/**
 * Load the registry key (PKCS8 PEM) from `file`, or create it there on first
 * start: written to a 0600 temp file, synced and renamed, so a crash never
 * leaves half a key. An existing key readable by group or others is refused:
 * whoever reads it can forge attestations. `created` tells which happened.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT (group/world-readable key), KEY_INVALID,
 *   FILE_UNREADABLE, FILE_WRITE_FAILED
 */
export async function loadOrCreateRegistryKey(
  file: string,
): Promise<RegistryKey & { readonly created: boolean }> {
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new RyeError('FILE_UNREADABLE', `Cannot read ${file}: ${messageOf(error)}`, {
      path: file,
    });
  });
  if (info === null) {
    const pair = generateKeyPair();
    await writeFileAtomic(file, pair.privateKeyPem, { mode: 0o600, dirMode: 0o700 });
    return { ...registryKeyOf(pair.privateKeyPem), created: true };
  }
  if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot use the registry key ${file}: it is readable by other users (mode ${(info.mode & 0o777).toString(8)}); run chmod 600 on it`,
      { path: file, mode: info.mode & 0o777 },
    );
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new RyeError('FILE_UNREADABLE', `Cannot read ${file}: ${messageOf(error)}`, {
      path: file,
    });
  }
  return { ...registryKeyOf(text), created: false };
}
