/**
 * Bundles never write into a folder that holds files they do not own (issue
 * 30): a pulled bundle `apps` may not plant a `sitecustomize.py` (or a
 * `conftest.py`, a `node_modules` shim…) in `.ai/tools/apps/todo2/`, the
 * folder of a tool of yours. Before any write, every existing folder from a
 * written file's own up to the bundle folder holding it (an item folder, its
 * plans or lockfiles, an app folder) may hold only files of this bundle:
 *
 * - a path the incoming manifest lists, unless what is there now is an item
 *   signed by another key than the bundle's author (a tool of yours at a path
 *   the bundle claims); anything else there is replaced only with `--force`,
 *   the pull's own rule;
 * - a file the manifest already installed for the bundle lists with the bytes
 *   it holds, when that manifest verifies under the same author key (what an
 *   earlier version left).
 *
 * Anything else (your tool, an old file you edited, a link) refuses the whole
 * write, `--force` or not.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { RyeError } from '../errors/index.js';
import { trustSetOf, verifyText, type TrustedKey } from '../integrity/index.js';
import { decodeText, readFileCapped, unreadable } from '../platform/index.js';
import { bundleRoots } from './collect.js';
import { hasInlineSignature, itemTypeOfPath, readDigest } from './hash-files.js';
import { MAX_MANIFEST_BYTES, parseManifest } from './manifest-parse.js';
import { bundleManifestPath } from './manifest-path.js';
import { manifestScopeProblem } from './manifest-scope.js';
import type { BundleManifest } from './types.js';

/** A file in a folder a bundle would write into that the bundle does not own. */
export interface ForeignFile {
  /** Project-relative. */
  readonly path: string;
  /** The project-relative folder that holds it. */
  readonly folder: string;
}

/**
 * The folders writing `paths` reaches, project-relative, sorted: each path's
 * folder and every folder above it up to the outermost bundle folder holding
 * it. A path under none of the bundle's folders (which the lane rule already
 * refuses) reaches its own folder only. Pure.
 *
 * @throws RyeError ITEM_ID_INVALID, BUNDLE_MANIFEST_INVALID (a bad include).
 */
export function foldersReached(
  bundleId: string,
  includes: readonly string[],
  paths: Iterable<string>,
): string[] {
  const roots = bundleRoots(bundleId, includes);
  const folders = new Set<string>();
  for (const path of paths) {
    const outermost = roots
      .filter((root) => path.startsWith(`${root}/`))
      .sort((a, b) => a.length - b.length)[0];
    let folder = posix.dirname(path);
    for (;;) {
      folders.add(folder);
      if (outermost === undefined || folder === outermost || !folder.includes('/')) break;
      folder = posix.dirname(folder);
    }
  }
  return [...folders].sort();
}

/**
 * The files a bundle owns in the project, by path: null (whatever bytes but
 * another key's item) for the paths the incoming manifest lists, else the
 * SHA-256 the installed manifest of the same bundle lists, when it verifies
 * under `author` (the key that signed the incoming one) and stays in the
 * bundle's lane. An installed manifest that is absent, unreadable or signed
 * otherwise owns nothing.
 */
export async function readOwnedFiles(
  project: string,
  incoming: BundleManifest,
  author: TrustedKey,
): Promise<Map<string, OwnedBytes>> {
  const owned = new Map<string, OwnedBytes>();
  const installed = await readInstalled(project, incoming.bundle.id, author);
  for (const [path, entry] of installed?.files ?? []) owned.set(path, entry.sha256);
  for (const path of incoming.files.keys()) owned.set(path, null);
  return owned;
}

/** What a bundle owns at a path: exactly these bytes (SHA-256), or null: whatever is there but another key's item. */
export type OwnedBytes = string | null;

async function readInstalled(
  project: string,
  bundleId: string,
  author: TrustedKey,
): Promise<BundleManifest | null> {
  const path = bundleManifestPath(join(project, '.ai'), bundleId);
  let text: string;
  try {
    text = decodeText(await readFileCapped(path, MAX_MANIFEST_BYTES), path);
  } catch {
    return null; // no manifest there (or none readable): it owns nothing
  }
  const verdict = verifyText(text, {
    itemType: 'tool',
    extension: '.yaml',
    trust: trustSetOf([author]),
    path,
    subject: { itemId: bundleId, itemType: 'bundle' },
  });
  if (!verdict.ok) return null;
  try {
    const manifest = parseManifest(text, path);
    return manifestScopeProblem(manifest, bundleId) === undefined ? manifest : null;
  } catch {
    return null;
  }
}

/**
 * The first file (in folder, then name order) that lies directly in one of
 * `folders` and that the bundle does not own (see the module comment);
 * undefined when there is none. Folders that do not exist hold nothing;
 * sub-folders are not files (each reached folder is checked itself).
 *
 * @throws RyeError FILE_UNREADABLE when a folder or a file cannot be read.
 */
export async function findForeignFile(
  project: string,
  folders: readonly string[],
  owned: ReadonlyMap<string, OwnedBytes>,
  author: TrustedKey,
): Promise<ForeignFile | undefined> {
  for (const folder of folders) {
    const absolute = join(project, ...folder.split('/'));
    let entries: Dirent[];
    try {
      entries = await readdir(absolute, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      throw unreadable(absolute, error);
    }
    // In name order (UTF-16, the default sort): the first foreign file named is stable.
    const byName = new Map(entries.map((entry) => [entry.name, entry]));
    for (const name of [...byName.keys()].sort()) {
      const entry = byName.get(name) as Dirent;
      if (entry.isDirectory()) continue;
      const path = `${folder}/${entry.name}`;
      const bytes = owned.get(path);
      const file = join(absolute, entry.name);
      const mine =
        bytes === undefined || !entry.isFile()
          ? false
          : bytes === null
            ? !(await anotherKeysItem(path, file, author))
            : (await readDigest(file, { keepBytes: false })).sha256 === bytes;
      if (!mine) return { path, folder };
    }
  }
  return undefined;
}

/**
 * True when the file at `path` is an item whose signature line does not
 * verify under `author`: someone else's (or a broken one, or one too large to
 * be read as an item). Files outside the item folders, and unsigned ones, are nobody's.
 */
async function anotherKeysItem(path: string, file: string, author: TrustedKey): Promise<boolean> {
  const itemType = itemTypeOfPath(path);
  if (itemType === undefined) return false;
  let bytes: Buffer;
  try {
    bytes = await readFileCapped(file);
  } catch {
    return true;
  }
  if (!hasInlineSignature(path, bytes)) return false;
  const verdict = verifyText(decodeText(bytes, file), {
    itemType,
    extension: path.slice(path.lastIndexOf('.')),
    trust: trustSetOf([author]),
    path: file,
  });
  return !verdict.ok;
}

/**
 * Refuse writing `paths` (project-relative) for the bundle of `manifest`
 * (signed by `author`) into a folder that holds a file it does not own — the
 * one check every path that writes a bundle's files into a space runs, before
 * anything is written.
 *
 * @throws RyeError BUNDLE_FOLDER_OCCUPIED naming the folder and the file,
 *   FILE_UNREADABLE, BUNDLE_MANIFEST_INVALID (a bad include).
 */
export async function assertFoldersOwned(input: {
  readonly project: string;
  readonly manifest: BundleManifest;
  readonly author: TrustedKey;
  readonly paths: readonly string[];
  /** `Cannot <verb>: …` */
  readonly verb: string;
}): Promise<void> {
  const { project, manifest } = input;
  const { id, includes } = manifest.bundle;
  if (input.paths.length === 0) return;
  const owned = await readOwnedFiles(project, manifest, input.author);
  const reached = foldersReached(id, includes, input.paths);
  const foreign = await findForeignFile(project, reached, owned, input.author);
  if (foreign !== undefined) throw folderOccupied(input.verb, id, foreign);
}

/** BUNDLE_FOLDER_OCCUPIED for `found`, as `Cannot <verb>: …`. */
export function folderOccupied(verb: string, bundleId: string, found: ForeignFile): RyeError {
  return new RyeError(
    'BUNDLE_FOLDER_OCCUPIED',
    `Cannot ${verb}: ${found.folder.slice(0, 200)} holds ${found.path.slice(0, 200)}, which bundle ${bundleId} does not own; a bundle writes only into folders that hold nothing but its own files`,
    { bundleId, path: found.path, folder: found.folder },
  );
}
