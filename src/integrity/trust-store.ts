import { readdir, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { isRyeError, RyeError } from '../errors/index.js';
import { messageOf, readTextFile } from '../platform/index.js';
import { parsePublicKey } from './keys.js';
import { trustSetOf, type TrustedKey, type TrustSet } from './trust.js';
import { MAX_TRUST_FILE_BYTES, parseTrustToml } from './trust-toml.js';

/** A trusted key together with the store it came from. */
export interface StoredTrustedKey extends TrustedKey {
  readonly space: string;
}

export interface LoadedTrust {
  readonly trust: TrustSet;
  /** Every key read, in precedence order (shadowed duplicates included). */
  readonly keys: readonly StoredTrustedKey[];
  /** Files skipped, each with its reason (fingerprint mismatch, parse error…). */
  readonly warnings: readonly {
    readonly path: string;
    readonly code: string;
    readonly message: string;
  }[];
}

/**
 * Read trusted-key folders in precedence order (project → user → system). A
 * file whose recorded fingerprint does not match its key, or that does not
 * parse, is skipped with a warning — never trusted. A missing folder is empty.
 */
export async function loadTrustStore(
  stores: readonly { readonly space: string; readonly dir: string }[],
): Promise<LoadedTrust> {
  const keys: StoredTrustedKey[] = [];
  const warnings: { path: string; code: string; message: string }[] = [];
  for (const store of stores) {
    let names: string[];
    try {
      names = (await readdir(store.dir)).filter((n) => n.endsWith('.toml')).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(store.dir, name);
      try {
        const key = parseTrustToml(await readTextFile(path, MAX_TRUST_FILE_BYTES), path);
        keys.push({ ...key, space: store.space });
      } catch (error) {
        if (!isRyeError(error)) throw error;
        warnings.push({ path, code: error.code, message: error.message });
      }
    }
  }
  return { trust: trustSetOf(keys), keys, warnings };
}

/**
 * Read explicit trust material (`--trust`): TOML or PEM files, or folders of
 * them. Unlike the stores, a bad file here is an error: the caller named it.
 *
 * @throws RyeError FILE_UNREADABLE, TRUST_FILE_INVALID, KEY_INVALID, TRUST_FINGERPRINT_MISMATCH
 */
export async function loadExplicitTrust(paths: readonly string[]): Promise<TrustSet> {
  const keys: TrustedKey[] = [];
  for (const path of paths) {
    const files = (await isDirectory(path))
      ? (await readdir(path))
          .filter((n) => ['.toml', '.pem'].includes(extname(n)))
          .sort()
          .map((n) => join(path, n))
      : [path];
    for (const file of files) keys.push(await readTrustFile(file));
  }
  return trustSetOf(keys);
}

/** Read one trust file: a TOML document, or a bare PEM public key. */
export async function readTrustFile(path: string, owner?: string): Promise<TrustedKey> {
  const text = await readTextFile(path, MAX_TRUST_FILE_BYTES);
  if (text.includes('-----BEGIN') && !/^\s*fingerprint\s*=/m.test(text)) {
    const info = parsePublicKey(text);
    return {
      ...info,
      owner: owner ?? basename(path, extname(path)),
      attestation: '',
      source: path,
    };
  }
  const key = parseTrustToml(text, path);
  return owner === undefined ? key : { ...key, owner };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (error) {
    throw new RyeError(
      'FILE_UNREADABLE',
      `Cannot read trust material ${path}: ${messageOf(error)}`,
      { path },
    );
  }
}
