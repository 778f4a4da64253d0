import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { isRyeError, RyeError } from '../errors/index.js';
import { decodeText, messageOf, readFileCappedStatSync } from '../platform/index.js';
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

/** The `.toml` files of one trusted-key folder, read once: what is hashed is what is parsed. */
export interface TrustSnapshot {
  readonly dir: string;
  /** Sorted by name; `bytes` is null for a file that could not be read (reason in `error`). */
  readonly files: readonly {
    readonly name: string;
    readonly bytes: Buffer | null;
    readonly error: RyeError | null;
  }[];
}

/**
 * Read the `.toml` files of a trusted-key folder (a missing folder is empty).
 * Each file is capped at MAX_TRUST_FILE_BYTES; a file that cannot be read is
 * kept with its error, so it still counts in the digest.
 */
export async function readTrustSnapshot(dir: string): Promise<TrustSnapshot> {
  // Synchronous: a folder of a few small files, read on every `rye execute`
  // before the spawn, where each thread-pool trip costs more than the read.
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.toml'))
      // UTF-16 order (the default sort), which the digest is defined over.
      .sort();
  } catch {
    return { dir, files: [] };
  }
  const files = [];
  for (const name of names) {
    try {
      files.push({
        name,
        bytes: readFileCappedStatSync(join(dir, name), MAX_TRUST_FILE_BYTES),
        error: null,
      });
    } catch (error) {
      // Defensive: readFileCappedStatSync throws only RyeErrors; anything else is a bug to surface.
      /* v8 ignore if */
      if (!isRyeError(error)) throw error;
      files.push({ name, bytes: null, error });
    }
  }
  return { dir, files };
}

/**
 * The content digest of a trusted-key folder (docs/trust.md): SHA-256 over,
 * per file in name order, `name NUL length NUL bytes` (length `-1` and no bytes
 * for an unreadable file). Any key added, removed, renamed or edited changes it.
 */
export function trustSnapshotDigest(snapshot: TrustSnapshot): string {
  const hash = createHash('sha256');
  for (const file of snapshot.files) {
    hash.update(file.name, 'utf8');
    hash.update(NUL);
    hash.update(String(file.bytes?.length ?? -1), 'latin1');
    hash.update(NUL);
    if (file.bytes !== null) hash.update(file.bytes);
  }
  return hash.digest('hex');
}

/** Parse the keys of a snapshot; a file that does not parse is skipped with a warning. */
export function parseTrustSnapshot(snapshot: TrustSnapshot, space: string): LoadedTrust {
  const keys: StoredTrustedKey[] = [];
  const warnings: { path: string; code: string; message: string }[] = [];
  for (const file of snapshot.files) {
    const path = join(snapshot.dir, file.name);
    try {
      if (file.error !== null) throw file.error;
      const key = parseTrustToml(decodeText(file.bytes ?? Buffer.alloc(0), path), path);
      keys.push({ ...key, space });
    } catch (error) {
      // Defensive: decodeText and parseTrustToml throw only RyeErrors.
      /* v8 ignore if */
      if (!isRyeError(error)) throw error;
      warnings.push({ path, code: error.code, message: error.message });
    }
  }
  return { trust: trustSetOf(keys), keys, warnings };
}

/**
 * Read trusted-key folders in precedence order (project → user → system). A
 * file whose recorded fingerprint does not match its key, or that does not
 * parse, is skipped with a warning — never trusted. A missing folder is empty.
 */
export async function loadTrustStore(
  stores: readonly { readonly space: string; readonly dir: string }[],
): Promise<LoadedTrust> {
  const parts: LoadedTrust[] = [];
  for (const store of stores) {
    parts.push(parseTrustSnapshot(await readTrustSnapshot(store.dir), store.space));
  }
  return mergeLoadedTrust(parts);
}

/** Several loaded stores as one, in the order given (the first key wins a fingerprint). */
export function mergeLoadedTrust(parts: readonly LoadedTrust[]): LoadedTrust {
  const keys = parts.flatMap((p) => p.keys);
  return { trust: trustSetOf(keys), keys, warnings: parts.flatMap((p) => p.warnings) };
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
    // Synchronous, like the stores: a few small files, each async call a
    // thread-pool trip worth more than its read (`rye verify-file --trust`).
    const files = isDirectory(path)
      ? readdirSync(path)
          .filter((n) => ['.toml', '.pem'].includes(extname(n)))
          .sort()
          .map((n) => join(path, n))
      : [path];
    for (const file of files) keys.push(await readTrustFile(file));
  }
  return trustSetOf(keys);
}

/** Extensions that always mean "a bare PEM key" (whatever the text looks like). */
const PEM_EXTENSIONS = new Set(['.pem', '.pub', '.key', '.crt']);

/**
 * Read one trust file: a TOML document, or a bare PEM public key. A `.pem`
 * (`.pub`, `.key`) file, or any text with a `-----BEGIN` block and no TOML
 * `fingerprint`, is read as PEM, so a damaged key file is reported as a key
 * error, never as TOML syntax. A private key is refused: trust takes the
 * public half (`public_key.pem`), and a private key has no business being
 * passed around.
 *
 * @throws RyeError KEY_INVALID, FILE_*, TRUST_FILE_INVALID, TRUST_FINGERPRINT_MISMATCH
 */
export async function readTrustFile(path: string, owner?: string): Promise<TrustedKey> {
  const text = decodeText(readFileCappedStatSync(path, MAX_TRUST_FILE_BYTES), path);
  const pem =
    PEM_EXTENSIONS.has(extname(path).toLowerCase()) ||
    (text.includes('-----BEGIN') && !/^\s*fingerprint\s*=/m.test(text));
  if (pem) {
    return {
      ...parsePemKey(text, path),
      owner: owner ?? basename(path, extname(path)),
      attestation: '',
      source: path,
    };
  }
  const key = parseTrustToml(text, path);
  return owner === undefined ? key : { ...key, owner };
}

/** @throws RyeError KEY_INVALID naming `path` and what is wrong with it. */
function parsePemKey(text: string, path: string): ReturnType<typeof parsePublicKey> {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    throw new RyeError(
      'KEY_INVALID',
      `Cannot trust ${path}: it holds a PRIVATE key; trust the public key (public_key.pem, or \`rye keys show\` of its owner) and keep the private one secret`,
      { path },
    );
  }
  if (!/-----BEGIN [A-Z0-9 ]*PUBLIC KEY-----/.test(text)) {
    throw new RyeError(
      'KEY_INVALID',
      `Cannot trust ${path}: it is not a PEM public key (no -----BEGIN PUBLIC KEY----- block)`,
      { path },
    );
  }
  try {
    return parsePublicKey(text);
  } catch (error) {
    // Defensive: parsePublicKey throws only KEY_INVALID.
    /* v8 ignore if */
    if (!isRyeError(error, 'KEY_INVALID')) throw error;
    throw new RyeError(
      'KEY_INVALID',
      `Cannot trust ${path}: ${error.message.replace(/^Cannot [^:]*: /, '')}`,
      { path, ...error.details },
      { cause: error },
    );
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    throw new RyeError(
      'FILE_UNREADABLE',
      `Cannot read trust material ${path}: ${messageOf(error)}`,
      { path },
    );
  }
}

const NUL = Buffer.from([0]);
