import { join } from 'node:path';
import { RyeError, isRyeError } from '../../errors/index.js';
import { aiDir, type Spaces } from '../../items/index.js';
import { readTextFile, writeFileAtomic } from '../../platform/index.js';
import { tryCanonicalOrigin } from './registry-url.js';

/** The registry client's own files live in `<user>/.ai/registry/`. */
export function registryUserDir(spaces: Spaces): string {
  return join(aiDir(spaces, 'user'), 'registry');
}

/** Largest client file read (a pin or a token is well under 1 KiB each). */
const MAX_USER_FILE_BYTES = 1024 * 1024;

/**
 * Read a JSON object keyed by registry URL; a missing file is an empty map.
 * A file that exists but is not such an object is an error, never treated as
 * empty: forgetting a pin silently would re-open trust on first use.
 *
 * Keys are migrated to the canonical origin (files written before it had the
 * default port left out: `https://r.example` is read as `https://r.example:443`)
 * and written back in that form on the next write. Two entries that name one
 * origin with different contents are refused: which pin counts is the user's
 * call, not ours.
 *
 * @throws RyeError FILE_UNREADABLE, FILE_TOO_LARGE, FILE_BINARY
 */
export async function readUrlMap(path: string): Promise<Map<string, Record<string, unknown>>> {
  let text: string;
  try {
    text = await readTextFile(path, MAX_USER_FILE_BYTES);
  } catch (error) {
    // Absent when it was read: another run may create it a moment later (a
    // first pin under parallel pulls), and that must not read as unreadable.
    if (isRyeError(error, 'FILE_UNREADABLE') && isNotFound(error.cause)) return new Map();
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, 'it is not JSON', error);
  }
  if (!isObject(value)) throw corrupt(path, 'it is not a JSON object');
  const map = new Map<string, Record<string, unknown>>();
  for (const [url, entry] of Object.entries(value)) {
    if (!isObject(entry))
      throw corrupt(path, `the entry for ${url.slice(0, 100)} is not an object`);
    // A key that is no registry URL at all is kept as it is: it never matches.
    const origin = urlKey(url);
    const other = map.get(origin);
    if (other !== undefined && JSON.stringify(other) !== JSON.stringify(entry)) {
      throw corrupt(
        path,
        `two different entries name the registry ${origin.slice(0, 100)} (one is spelled ${url.slice(0, 100)}); remove the stale one`,
      );
    }
    map.set(origin, entry);
  }
  return map;
}

/** Write a JSON object keyed by registry URL: atomic, mode 0600, folder 0700. */
export async function writeUrlMap(
  path: string,
  map: ReadonlyMap<string, Record<string, unknown>>,
): Promise<void> {
  const sorted = [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const doc = Object.fromEntries(sorted);
  await writeFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`, {
    mode: 0o600,
    dirMode: 0o700,
  });
}

/** The map key for a registry URL: its canonical origin (any other text as it is). */
export function urlKey(url: string): string {
  return tryCanonicalOrigin(url) ?? url;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function corrupt(path: string, why: string, cause?: unknown): RyeError {
  return new RyeError(
    'FILE_UNREADABLE',
    `Cannot read ${path}: ${why}; fix or remove it`,
    { path },
    cause === undefined ? {} : { cause },
  );
}

function isNotFound(cause: unknown): boolean {
  return (cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
