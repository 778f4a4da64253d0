/**
 * Which files belong to a bundle (seed 002, "What Gets Bundled"): the bundle's
 * directives, tools, knowledge, plans and lockfiles under `.ai/`, plus the
 * declared app folders. Links are never followed and never collected.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RyeError } from '../errors/index.js';
import { ITEM_FOLDERS, itemName, parseItemId } from '../items/index.js';
import { compileGlob, isGlob, unreadable } from '../platform/index.js';
import { includeProblem, NODE_MODULES } from './bundle-lane.js';
import { comparePaths, manifestPathProblem } from './manifest-path.js';

/** One file of a bundle. */
export interface CollectedFile {
  /** Project-relative, `/`-separated (the manifest key). */
  readonly path: string;
  readonly absolutePath: string;
}

/** Segment names never collected below a bundle folder (seed 002, "What Does NOT Get Bundled"). */
export const DEFAULT_BUNDLE_EXCLUDES: readonly string[] = [
  'node_modules',
  '.git',
  'dist',
  'build',
  '__pycache__',
  '.venv',
  '.DS_Store',
  'coverage',
  '.pytest_cache',
];

/** What a walk found: regular files, and links or special files (never followed). */
export interface BundleWalk {
  readonly files: CollectedFile[];
  /** Project-relative paths of links and non-regular files, sorted. */
  readonly strays: string[];
}

/**
 * The folders of a bundle's own items, project-relative: `.ai/{directives,
 * tools,knowledge}/<id>`, `.ai/plans/<last id segment>`, `.ai/lockfiles/<id>`.
 *
 * @throws RyeError ITEM_ID_INVALID.
 */
export function bundleItemRoots(bundleId: string): string[] {
  parseItemId(bundleId);
  return [
    ...Object.values(ITEM_FOLDERS).map((folder) => `.ai/${folder}/${bundleId}`),
    `.ai/plans/${itemName(bundleId)}`,
    `.ai/lockfiles/${bundleId}`,
  ];
}

/**
 * The folders a bundle is made of, project-relative: its item folders (see
 * {@link bundleItemRoots}), then each include. An include must be an app
 * folder by the lane rule (`includeProblem`: plain-named segments, never
 * inside `.ai/`, never a dot-path or a dependency folder).
 *
 * @throws RyeError ITEM_ID_INVALID, BUNDLE_MANIFEST_INVALID (a bad include).
 */
export function bundleRoots(bundleId: string, includes: readonly string[]): string[] {
  const roots = bundleItemRoots(bundleId);
  for (const include of includes) {
    const why = includeProblem(include);
    if (why !== undefined) {
      throw new RyeError(
        'BUNDLE_MANIFEST_INVALID',
        `Cannot include "${include.slice(0, 200)}" in bundle ${bundleId}: ${why}`,
        { bundleId, include },
      );
    }
    roots.push(include);
  }
  return roots;
}

/** How a bundle's folders are walked. */
export interface WalkOptions {
  /** Segment names left out (`*` matches within a segment); defaults to DEFAULT_BUNDLE_EXCLUDES. */
  readonly exclude?: readonly string[] | undefined;
  /**
   * Walk the `node_modules` folders of the app folders too, every file in
   * them whatever `exclude` says (an app that ships its dependencies). Never
   * the `node_modules` of an item folder.
   */
  readonly nodeModules?: boolean | undefined;
  /**
   * Paths left out of what the walk returns (a manifest's listed files, when
   * only the files that are not listed are wanted).
   */
  readonly except?: { has(path: string): boolean } | undefined;
}

/**
 * Walk a bundle's folders under `projectPath` without following links. A
 * missing folder contributes nothing. Exclude names match whole path segments
 * below a folder (`*` and `?` are glob wildcards, platform's `compileGlob`); the folders named by the id
 * and the includes are taken as given. By the lane rule (bundle-lane.ts) an
 * entry whose name starts with a dot is never bundle content and is skipped,
 * whatever the excludes, and so is `node_modules` unless `nodeModules` asks
 * for the app folders' ones. A root that is not a folder (a file, a link, or
 * reached through a link) is a stray.
 *
 * @throws RyeError ITEM_ID_INVALID, BUNDLE_MANIFEST_INVALID, FILE_UNREADABLE.
 */
export async function walkBundle(
  projectPath: string,
  bundleId: string,
  includes: readonly string[],
  options: WalkOptions = {},
): Promise<BundleWalk> {
  const { files, strays } = await walkBundlePaths(projectPath, bundleId, includes, options);
  return {
    files: files
      .sort(comparePaths)
      .map((path) => ({ path, absolutePath: join(projectPath, ...path.split('/')) })),
    strays: strays.sort(comparePaths),
  };
}

/**
 * {@link walkBundle}'s findings as project-relative paths only, in no
 * particular order (`rye bundle verify` looks each up in its manifest).
 *
 * @throws RyeError ITEM_ID_INVALID, BUNDLE_MANIFEST_INVALID, FILE_UNREADABLE.
 */
export async function walkBundlePaths(
  projectPath: string,
  bundleId: string,
  includes: readonly string[],
  options: WalkOptions = {},
): Promise<{ files: string[]; strays: string[] }> {
  const excluded = excludeMatcher(options.exclude ?? DEFAULT_BUNDLE_EXCLUDES);
  const except = options.except;
  const files = new Set<string>();
  const strays = new Set<string>();

  // `deps`: inside an app folder's node_modules, where every file counts.
  const walk = async (rel: string, app: boolean, deps: boolean): Promise<void> => {
    const dir = join(projectPath, ...rel.split('/'));
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      throw unreadable(dir, error);
    }
    const below: Promise<void>[] = [];
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const modules =
        entry.name.length === NODE_MODULES.length && entry.name.toLowerCase() === NODE_MODULES;
      if (modules && !(app && options.nodeModules === true)) continue;
      if (!deps && !modules && excluded(entry.name)) continue;
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) below.push(walk(child, app, deps || modules));
      else if (except?.has(child) === true) continue;
      else if (entry.isFile()) files.add(child);
      else strays.add(child);
    }
    await Promise.all(below);
  };

  const itemRoots = new Set(bundleItemRoots(bundleId));
  for (const root of bundleRoots(bundleId, includes)) {
    const kind = await rootKind(projectPath, root);
    if (kind === 'missing') continue;
    if (kind === 'dir') await walk(root, !itemRoots.has(root), false);
    else strays.add(kind === 'file' ? root : kind.stray);
  }
  return { files: [...files].filter((path) => !isManifestPath(path)), strays: [...strays] };
}

/**
 * The files of a bundle, sorted by path.
 *
 * @throws RyeError BUNDLE_EMPTY (no file at all), BUNDLE_MANIFEST_INVALID (a
 *   link or special file in a bundle folder, an include that is a file or
 *   breaks the lane rule), ITEM_ID_INVALID, FILE_UNREADABLE.
 */
export async function collectBundleFiles(
  projectPath: string,
  bundleId: string,
  includes: readonly string[],
  options: WalkOptions = {},
): Promise<CollectedFile[]> {
  const { files, strays } = await walkBundle(projectPath, bundleId, includes, options);
  const [stray] = strays;
  if (stray !== undefined) {
    const why = bundleRoots(bundleId, includes).includes(stray)
      ? "it is a file, and a bundle's folders (its item folders, its includes) are folders"
      : 'it is a link or special file, and bundles never contain links';
    throw new RyeError(
      'BUNDLE_MANIFEST_INVALID',
      `Cannot collect bundle ${bundleId}: ${stray} ${why}`,
      {
        bundleId,
        path: stray,
        strays,
      },
    );
  }
  for (const file of files) {
    const why = manifestPathProblem(file.path);
    if (why !== undefined) {
      throw new RyeError(
        'BUNDLE_MANIFEST_INVALID',
        `Cannot collect bundle ${bundleId}: the name of ${JSON.stringify(file.path.slice(0, 200))} cannot be listed: ${why}`,
        { bundleId, path: file.path },
      );
    }
  }
  if (files.length === 0) {
    throw new RyeError('BUNDLE_EMPTY', `Cannot collect bundle ${bundleId}: it has no files`, {
      bundleId,
      includes,
    });
  }
  return files;
}

/** True for paths under `.ai/bundles/` (manifests are never bundle content). */
export function isManifestPath(path: string): boolean {
  return path.startsWith('.ai/bundles/');
}

/**
 * What a root is, checking every segment from the project down with lstat: a
 * root reached through a link is a stray (named by its first link segment).
 */
async function rootKind(
  projectPath: string,
  root: string,
): Promise<'missing' | 'dir' | 'file' | { stray: string }> {
  const segments = root.split('/');
  for (let i = 1; i <= segments.length; i += 1) {
    const rel = segments.slice(0, i).join('/');
    const path = join(projectPath, ...segments.slice(0, i));
    let info;
    try {
      info = await lstat(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
      throw unreadable(path, error);
    }
    if (info.isSymbolicLink()) return { stray: rel };
    if (i === segments.length) {
      return info.isDirectory() ? 'dir' : info.isFile() ? 'file' : { stray: rel };
    }
    if (!info.isDirectory()) return 'missing';
  }
  return 'missing';
}

function excludeMatcher(exclude: readonly string[]): (name: string) => boolean {
  const exact = new Set(exclude.filter((e) => !isGlob(e)));
  const globs = exclude.filter((e) => isGlob(e)).map((e) => compileGlob(e));
  return (name) => exact.has(name) || globs.some((matches) => matches(name));
}
