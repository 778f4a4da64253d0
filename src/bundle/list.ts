/**
 * `rye bundle list`: every bundle manifest in the three spaces, parsed but not
 * verified (listing is not trusting; `verifyBundle` is). `listManifestPaths`
 * is the listing alone, for callers that read each manifest themselves.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RyeError, isRyeError, type ErrorCode } from '../errors/index.js';
import { SPACE_NAMES, problemWith, type SpaceName, type Spaces } from '../items/index.js';
import { decodeText, readFileCapped, unreadable } from '../platform/index.js';
import { bundlesDir } from './bundles-dir.js';
import { MAX_MANIFEST_BYTES, parseManifest } from './manifest-parse.js';
import { comparePaths } from './manifest-path.js';
import { MANIFEST_FILE } from './types.js';

/** One manifest found on disk. */
export interface ListedBundle {
  /** The folder path under `.ai/bundles/` (what the manifest must declare). */
  readonly bundleId: string;
  readonly space: SpaceName;
  /** The manifest file, absolute. */
  readonly path: string;
  readonly version?: string;
  readonly fileCount?: number;
  /** Why the manifest could not be read or parsed; version and fileCount are then absent. */
  readonly error?: { readonly code: ErrorCode; readonly message: string };
}

/** Where one manifest lies on disk (nothing read from it). */
export interface ManifestLocation {
  readonly space: SpaceName;
  /** The folder path under `.ai/bundles/` (what the manifest must declare). */
  readonly bundleId: string;
  /** The manifest file, absolute. */
  readonly path: string;
  /** Why that folder path is not a bundle id (`problemWith`), when it is not one. */
  readonly idProblem?: string;
}

/**
 * Every `<space>/.ai/bundles/**\/manifest.yaml`, project → user → system, then
 * by bundle id, without reading any of them. Links are not followed. A folder
 * path that is not a bundle id is still listed, with its `idProblem`.
 *
 * @throws RyeError FILE_UNREADABLE when a bundles folder cannot be listed.
 */
export async function listManifestPaths(spaces: Spaces): Promise<ManifestLocation[]> {
  const out: ManifestLocation[] = [];
  for (const space of SPACE_NAMES) {
    const root = bundlesDir(spaces, space);
    const found: ManifestLocation[] = [];
    for (const segments of await findManifests(root, [])) {
      const bundleId = segments.join('/');
      const path = join(root, ...segments, MANIFEST_FILE);
      const idProblem = problemWith(bundleId);
      found.push({ space, bundleId, path, ...(idProblem === undefined ? {} : { idProblem }) });
    }
    out.push(...found.sort((a, b) => comparePaths(a.bundleId, b.bundleId)));
  }
  return out;
}

/**
 * Every `<space>/.ai/bundles/**\/manifest.yaml`, project → user → system, then
 * by bundle id. Links are not followed. A manifest that cannot be read or
 * parsed, or that declares another bundle id, is listed with its error.
 *
 * @throws RyeError FILE_UNREADABLE when a bundles folder cannot be listed.
 */
export async function listBundles(spaces: Spaces): Promise<ListedBundle[]> {
  const out: ListedBundle[] = [];
  for (const { bundleId, space, path, idProblem } of await listManifestPaths(spaces)) {
    out.push({ bundleId, space, path, ...(await summarize(bundleId, path, idProblem)) });
  }
  return out;
}

async function summarize(
  bundleId: string,
  path: string,
  idProblem: string | undefined,
): Promise<Pick<ListedBundle, 'version' | 'fileCount' | 'error'>> {
  try {
    if (idProblem !== undefined) throw invalid(path, `its folder is not a bundle id: ${idProblem}`);
    const text = decodeText(await readFileCapped(path, MAX_MANIFEST_BYTES), path);
    const manifest = parseManifest(text, path);
    if (manifest.bundle.id !== bundleId) {
      throw invalid(path, `it declares bundle ${manifest.bundle.id}, not ${bundleId}`);
    }
    return { version: manifest.bundle.version, fileCount: manifest.files.size };
  } catch (error) {
    // Defensive: readFileCapped, decodeText and parseManifest throw only RyeErrors.
    /* v8 ignore if */
    if (!isRyeError(error)) throw error;
    return { error: { code: error.code, message: error.message } };
  }
}

/** Folder paths (as segments, relative to `root`) holding a manifest file. */
async function findManifests(root: string, segments: string[]): Promise<string[][]> {
  const dir = join(root, ...segments);
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && segments.length === 0) return [];
    throw unreadable(dir, error);
  }
  const out: string[][] = [];
  if (segments.length > 0 && entries.some((e) => e.name === MANIFEST_FILE && e.isFile())) {
    out.push(segments);
  }
  for (const entry of entries) {
    if (entry.isDirectory()) out.push(...(await findManifests(root, [...segments, entry.name])));
  }
  return out;
}

function invalid(path: string, why: string): RyeError {
  return new RyeError('BUNDLE_MANIFEST_INVALID', `Cannot list bundle manifest ${path}: ${why}`, {
    path,
  });
}
