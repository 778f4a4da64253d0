import { join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import type { Spaces } from '../../items/index.js';
import { isObject, readUrlMap, registryUserDir, writeUrlMap } from './user-files.js';

/**
 * What the client remembers of signed package indexes, beside the pins:
 * `<user>/.ai/registry/seen_indexes.json`, keyed by registry URL (the same
 * canonical origin the pins use), `{fingerprint, packages: {<package>: seq}}`:
 * the highest `seq` verified per package under that registry key. A lower seq
 * is a rollback. The entry is bound to the pinned key: after a re-pin (a key
 * rotation the user approved) the old numbers no longer apply.
 */
export function seenIndexesPath(spaces: Spaces): string {
  return join(registryUserDir(spaces), 'seen_indexes.json');
}

/** Which package: `(kind, item type, namespace, id)`; item type null for bundles. */
export interface IndexPackage {
  readonly kind: 'item' | 'bundle';
  readonly itemType: 'directive' | 'tool' | 'knowledge' | null;
  readonly namespace: string;
  readonly itemId: string;
}

/** The package's key in the file: `item:tool:alice/utils/greet`, `bundle::alice/apps/x`. */
export function packageName(p: IndexPackage): string {
  return `${p.kind}:${p.itemType ?? ''}:${p.namespace}/${p.itemId}`;
}

/**
 * The highest seq verified for a package under this registry key, or null.
 * A damaged file is an error, never "nothing seen": forgetting would let an
 * old index back in.
 *
 * @throws RyeError FILE_UNREADABLE, FILE_TOO_LARGE, FILE_BINARY
 */
export async function readSeenSeq(
  spaces: Spaces,
  url: string,
  fingerprint: string,
  pkg: IndexPackage,
): Promise<number | null> {
  const path = seenIndexesPath(spaces);
  const entry = entryOf(await readUrlMap(path), path, url);
  if (entry === null || entry.fingerprint !== fingerprint) return null;
  return entry.packages[packageName(pkg)] ?? null;
}

/**
 * Record a verified seq (never lowering one already recorded). Written
 * atomically (temp file, fsync, rename), mode 0600; the file is re-read just
 * before the write so concurrent pulls of other packages are kept.
 *
 * @throws RyeError FILE_UNREADABLE, FILE_WRITE_FAILED
 */
export async function recordSeenSeq(
  spaces: Spaces,
  url: string,
  fingerprint: string,
  pkg: IndexPackage,
  seq: number,
): Promise<void> {
  const path = seenIndexesPath(spaces);
  const map = await readUrlMap(path);
  const entry = entryOf(map, path, url);
  const packages = entry !== null && entry.fingerprint === fingerprint ? entry.packages : {};
  const name = packageName(pkg);
  if ((packages[name] ?? -1) >= seq) return;
  map.set(url, { fingerprint, packages: { ...packages, [name]: seq } });
  await writeUrlMap(path, map);
}

interface SeenEntry {
  readonly fingerprint: string;
  readonly packages: Readonly<Record<string, number>>;
}

function entryOf(
  map: ReadonlyMap<string, Record<string, unknown>>,
  path: string,
  url: string,
): SeenEntry | null {
  const entry = map.get(url);
  if (entry === undefined) return null;
  const { fingerprint, packages } = entry;
  const damaged = (why: string): never => {
    throw new RyeError(
      'FILE_UNREADABLE',
      `Cannot read the seen package indexes of ${url} in ${path}: ${why}; fix the entry (removing it forgets rollback protection for that registry)`,
      { path, registry: url },
    );
  };
  if (typeof fingerprint !== 'string' || !/^[0-9a-f]{16}$/.test(fingerprint))
    damaged('its fingerprint is not 16 hex');
  if (!isObject(packages)) return damaged('its packages are not an object');
  const out: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const [name, seq] of Object.entries(packages)) {
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0)
      damaged(`the seq of ${name.slice(0, 100)} is not a non-negative integer`);
    out[name] = seq as number;
  }
  return { fingerprint: fingerprint as string, packages: out };
}
