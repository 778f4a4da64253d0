/**
 * The manifest `rye bundle create` is about to replace. Re-creating a bundle
 * whose files did not change gives the same bytes (its `created_at` is kept
 * and the signature line is kept by `signText`), so what was pushed before
 * pushes again as "unchanged". Replacing a version with other content needs
 * `--force`: a published version is immutable, and a manifest in the project
 * is what others verify against.
 */
import { RyeError, isRyeError } from '../errors/index.js';
import { bodyWithoutSignature } from '../integrity/index.js';
import { pathExists, readTextFile } from '../platform/index.js';
import { MAX_MANIFEST_BYTES, parseManifest } from './manifest-parse.js';
import type { BundleManifest } from './types.js';

/** The manifest in place: its text and parse, or why it could not be read (`manifest: null`). */
export type PreviousManifest =
  | { readonly text: string; readonly manifest: BundleManifest; readonly problem: null }
  | { readonly text: string | null; readonly manifest: null; readonly problem: string };

/**
 * Read the manifest at `path` (size-capped, parsed under the manifest
 * parser's caps); null when there is none. A manifest that does not read or
 * parse is returned with its problem, never thrown.
 */
export async function readPreviousManifest(path: string): Promise<PreviousManifest | null> {
  if (!(await pathExists(path))) return null;
  let text: string | null = null;
  try {
    text = await readTextFile(path, MAX_MANIFEST_BYTES);
    return { text, manifest: parseManifest(text, path), problem: null };
  } catch (error) {
    // Defensive: readTextFile and parseManifest throw only RyeErrors.
    /* v8 ignore if */
    if (!isRyeError(error)) throw error;
    return { text, manifest: null, problem: error.message };
  }
}

/**
 * The text to sign for a manifest `body`: the file in place when its body is
 * exactly `body` (so `signText` keeps a valid line of the same key byte for
 * byte), else `body` itself.
 */
export function textToSign(body: string, previous: PreviousManifest | null): string {
  const text = previous?.manifest === null ? null : (previous?.text ?? null);
  if (text === null) return body;
  return bodyWithoutSignature(text, 'tool', '.yaml') === body ? text : body;
}

/** `next` with the previous `created_at` when nothing else differs (same bytes, same hash). */
export function keepCreatedAt(
  next: BundleManifest,
  previous: PreviousManifest | null,
): BundleManifest {
  const old = previous?.manifest ?? null;
  if (old === null || differences(old, next).length > 0) return next;
  return { ...next, bundle: { ...next.bundle, createdAt: old.bundle.createdAt } };
}

/**
 * Refuse to replace a manifest of the same version with other content, or one
 * that cannot be read, unless `force`.
 *
 * @throws RyeError BUNDLE_EXISTS
 */
export function assertReplaceable(
  path: string,
  next: BundleManifest,
  previous: PreviousManifest | null,
  force: boolean,
): void {
  if (previous === null || force) return;
  const { id, version } = next.bundle;
  if (previous.manifest === null) {
    throw new RyeError(
      'BUNDLE_EXISTS',
      `Cannot create bundle ${id}: ${path} is there and cannot be read as a manifest (${previous.problem}); pass --force to replace it`,
      { bundleId: id, path },
    );
  }
  if (previous.manifest.bundle.version !== version) return;
  const changed = differences(previous.manifest, next);
  if (changed.length === 0) return;
  throw new RyeError(
    'BUNDLE_EXISTS',
    `Cannot create bundle ${id} ${version}: ${path} already holds version ${version} with other content (${changed.join(', ')}); bump --version, or pass --force to replace it`,
    { bundleId: id, version, path, changed },
  );
}

/** What differs between two manifests, `created_at` aside, in words. */
function differences(a: BundleManifest, b: BundleManifest): string[] {
  const out: string[] = [];
  const x = a.bundle;
  const y = b.bundle;
  if (x.id !== y.id) out.push('bundle id');
  if (x.version !== y.version) out.push('version');
  if (x.description !== y.description) out.push('description');
  if (JSON.stringify(x.entrypoint) !== JSON.stringify(y.entrypoint)) out.push('entrypoint');
  if (JSON.stringify(x.includes) !== JSON.stringify(y.includes)) out.push('includes');
  let added = 0;
  let changed = 0;
  for (const [path, entry] of b.files) {
    const old = a.files.get(path);
    if (old === undefined) added += 1;
    else if (old.sha256 !== entry.sha256 || old.inlineSigned !== entry.inlineSigned) changed += 1;
  }
  const removed = [...a.files.keys()].filter((p) => !b.files.has(p)).length;
  if (added > 0) out.push(`${added} file${added === 1 ? '' : 's'} added`);
  if (removed > 0) out.push(`${removed} file${removed === 1 ? '' : 's'} removed`);
  if (changed > 0) out.push(`${changed} file${changed === 1 ? '' : 's'} changed`);
  return out;
}
