import { join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { fingerprintOf } from '../../integrity/index.js';
import type { Spaces } from '../../items/index.js';
import { readUrlMap, registryUserDir, urlKey, writeUrlMap } from './user-files.js';

/** A registry key pinned on first use (TOFU). */
export interface RegistryPin {
  readonly fingerprint: string;
  /** SPKI PEM with its final newline. */
  readonly publicKeyPem: string;
  readonly pinnedAt: string;
}

/** `<user>/.ai/registry/known_registries.json`: URL → `{fingerprint, public_key, pinned_at}`. */
export function knownRegistriesPath(spaces: Spaces): string {
  return join(registryUserDir(spaces), 'known_registries.json');
}

/**
 * The pin for a registry URL, or null when it was never used. A damaged entry
 * is an error, never "not pinned": that would re-open trust on first use.
 *
 * @throws RyeError FILE_UNREADABLE
 */
export async function readPin(spaces: Spaces, url: string): Promise<RegistryPin | null> {
  const path = knownRegistriesPath(spaces);
  const entry = (await readUrlMap(path)).get(urlKey(url));
  if (entry === undefined) return null;
  const { fingerprint, public_key: publicKeyPem, pinned_at: pinnedAt } = entry;
  if (
    typeof fingerprint !== 'string' ||
    typeof publicKeyPem !== 'string' ||
    fingerprintOf(publicKeyPem) !== fingerprint
  ) {
    throw new RyeError(
      'FILE_UNREADABLE',
      `Cannot read the pin of ${url} in ${path}: its fingerprint and public_key do not match; remove the entry and pin again`,
      { path, registry: url },
    );
  }
  return { fingerprint, publicKeyPem, pinnedAt: typeof pinnedAt === 'string' ? pinnedAt : '' };
}

/** Pin (or re-pin) a registry key for a URL; the file is written atomically, 0600. */
export async function savePin(spaces: Spaces, url: string, pin: RegistryPin): Promise<string> {
  const path = knownRegistriesPath(spaces);
  const map = await readUrlMap(path);
  map.set(urlKey(url), {
    fingerprint: pin.fingerprint,
    public_key: pin.publicKeyPem,
    pinned_at: pin.pinnedAt,
  });
  await writeUrlMap(path, map);
  return path;
}
