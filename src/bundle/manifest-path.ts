/**
 * The path rule for bundle manifests (seed 002, "Layer 2"): every listed file
 * and declared folder is a project-relative path that cannot leave the project
 * on any platform. Shared by the manifest parser, the file collector and the
 * runtime check so they can never disagree about what is a safe path.
 */
import { compareCodePoints } from '../integrity/index.js';
import { join } from 'node:path';
import { parseItemId } from '../items/index.js';
import { MANIFEST_FILE } from './types.js';

/** Longest path accepted, in UTF-16 units (well above any real project path). */
const MAX_PATH_LENGTH = 4096;

// C0, DEL and C1 controls; U+2028/U+2029 and U+FEFF read as line breaks or BOMs to some tools.
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;
// With the `u` flag this matches only unpaired surrogates (not encodable as UTF-8 names).
const LONE_SURROGATE_RE = /[\ud800-\udfff]/u;

/**
 * Paths made of plain names (letters, digits, `_ . @ + -`) joined by single
 * `/`: such a path fails the rule below only through a segment of dots alone.
 * Almost every real path is one, and is accepted without the full walk.
 */
const PLAIN_PATH_RE = /^[\w.@+-]+(?:\/[\w.@+-]+)*$/;
const DOTS_SEGMENT_RE = /(?:^|\/)\.+(?:\/|$)/;

/**
 * Why `path` is not an acceptable manifest path, or undefined when it is.
 *
 * Accepted: project-relative, `/`-separated, no leading `/`, no drive letter,
 * no backslash, no empty, `.` or `..` segment, no control characters or lone
 * surrogates. Segments made only of dots and spaces (`...`, `.. `) are refused
 * too: Windows strips trailing dots and spaces, which would turn them into `..`.
 * Pure; never throws.
 */
export function manifestPathProblem(path: string): string | undefined {
  if (path.length <= MAX_PATH_LENGTH && PLAIN_PATH_RE.test(path) && !DOTS_SEGMENT_RE.test(path))
    return undefined;
  return pathRuleProblem(path);
}

/** {@link manifestPathProblem} without its shortcut for plain paths: the rule, walked in full. */
export function pathRuleProblem(path: string): string | undefined {
  if (path.length === 0) return 'it is empty';
  if (path.length > MAX_PATH_LENGTH) return `it is longer than ${MAX_PATH_LENGTH} characters`;
  if (CONTROL_RE.test(path)) return 'it contains control characters';
  if (LONE_SURROGATE_RE.test(path)) return 'it contains an unpaired surrogate';
  if (path.includes('\\')) return 'it contains a backslash';
  if (path.startsWith('/')) return 'it is an absolute path';
  if (/^[A-Za-z]:/.test(path)) return 'it starts with a drive letter';
  for (const segment of path.split('/')) {
    if (segment === '') return 'it has an empty path segment';
    if (segment === '.' || segment === '..') return `it has a "${segment}" segment`;
    if (/^[. ]+$/.test(segment)) return `segment "${segment}" is only dots and spaces`;
  }
  return undefined;
}

/**
 * Where a bundle's manifest lives: `<aiDir>/bundles/<bundleId>/manifest.yaml`.
 * Pure. `bundleId` is checked first, so the result always stays under
 * `<aiDir>/bundles/`.
 *
 * @throws RyeError ITEM_ID_INVALID when `bundleId` is not item-id shaped.
 */
export function bundleManifestPath(aiDir: string, bundleId: string): string {
  return join(aiDir, 'bundles', ...parseItemId(bundleId).split('/'), MANIFEST_FILE);
}

/**
 * Order two paths by Unicode code point (the manifest's `files` order; Python
 * `sorted()` order), not by UTF-16 unit as `<` does.
 */
export const comparePaths: (a: string, b: string) => number = compareCodePoints;
