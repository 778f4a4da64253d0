/**
 * Verified snapshots: a tool runs from a private, read-only, content-addressed
 * copy of exactly the files that were authenticated for it, written from the
 * bytes that were hashed. Unverified siblings, bytecode, native modules and
 * planted binaries do not exist where the interpreter looks; a file swapped
 * after the check changes nothing; a snapshot is built once per tree and
 * reused while the tree is unchanged. See docs/threat-model.md.
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { RyeError, isRyeError } from '../../errors/index.js';
import { compareCodePoints, runnableBytes, sha256Hex } from '../../integrity/index.js';

/**
 * Where a file sits in a snapshot: the dependency scope, a lone tool file, the
 * runtime library, or the runtime library mounted as a package
 * (`node_modules/<name>/…` at the snapshot's root, above every tool file).
 */
export type SnapshotArea = 'scope' | 'tool' | 'lib' | 'package';

const AREA_DIR: Readonly<Record<SnapshotArea, string>> = {
  scope: 's',
  tool: 't',
  lib: 'l',
  package: 'node_modules',
};
const INDEX = 'index.json';
const FORMAT = 'rye-snapshot-v1';

/** One authenticated file, with the bytes that were hashed. */
export interface SnapshotSource {
  readonly area: SnapshotArea;
  /** `/`-separated, relative to the area. */
  readonly rel: string;
  /** Lower-case extension that chose the signature format it was verified with. */
  readonly extension: string;
  readonly raw: Uint8Array;
  readonly rawSha256: string;
}

/** Where a snapshot lives: `<cache>/snapshots/<key>`. */
export interface SnapshotLayout {
  readonly key: string;
  readonly dir: string;
}

/** The folder of an area inside a snapshot. Pure. */
export function areaDir(layout: SnapshotLayout, area: SnapshotArea): string {
  return join(layout.dir, AREA_DIR[area]);
}

/**
 * The snapshot's address: a SHA-256 over every (area, path, extension, raw
 * hash). What is written is a pure function of those (`runnableBytes`), so
 * equal keys mean equal trees. Pure.
 */
export function snapshotLayout(
  cacheDir: string,
  sources: readonly SnapshotSource[],
): SnapshotLayout {
  const lines = sources
    .map((s) => `${s.area}\0${s.rel}\0${s.extension}\0${s.rawSha256}\n`)
    .sort(compareCodePoints);
  const key = sha256Hex(Buffer.from(FORMAT + '\n' + lines.join(''), 'utf8')).slice(0, 40);
  return { key, dir: join(cacheDir, 'snapshots', key) };
}

/**
 * Make sure the snapshot exists and return what it holds: absolute path →
 * SHA-256 of the bytes written there. A missing snapshot is written to a
 * temporary folder (each file fsynced), made read-only and renamed into place
 * whole, so a crash or a concurrent run never leaves a partial tree in use.
 *
 * @throws RyeError EXECUTOR_SNAPSHOT_FAILED when the cache cannot be written or read.
 */
export function materializeSnapshot(
  layout: SnapshotLayout,
  sources: readonly SnapshotSource[],
): ReadonlyMap<string, string> {
  try {
    return readIndex(layout) ?? createSnapshot(layout, sources);
  } catch (error) {
    if (isRyeError(error)) throw error;
    throw new RyeError(
      'EXECUTOR_SNAPSHOT_FAILED',
      `Cannot prepare the verified snapshot ${layout.dir}: ${(error as Error).message}`,
      { dir: layout.dir },
      { cause: error },
    );
  }
}

function readIndex(layout: SnapshotLayout): Map<string, string> | null {
  let text: string;
  try {
    text = readFileSync(join(layout.dir, INDEX), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const parsed = JSON.parse(text) as { format?: unknown; files?: Record<string, string> };
  if (parsed.format !== FORMAT || typeof parsed.files !== 'object' || parsed.files === null)
    throw new Error(`${INDEX} is not a ${FORMAT} index`);
  return new Map(
    Object.entries(parsed.files).map(([rel, sha]) => [join(layout.dir, ...rel.split('/')), sha]),
  );
}

function createSnapshot(
  layout: SnapshotLayout,
  sources: readonly SnapshotSource[],
): Map<string, string> {
  const root = dirname(layout.dir);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const tmp = mkdtempSync(join(root, '.tmp-'));
  const files: Record<string, string> = {};
  try {
    for (const source of sources) {
      const rel = `${AREA_DIR[source.area]}/${source.rel}`;
      const bytes = runnableBytes(source.raw, source.extension);
      writeDurably(join(tmp, ...rel.split('/')), bytes, 0o555);
      files[rel] = sha256Hex(bytes);
    }
    writeDurably(join(tmp, INDEX), Buffer.from(JSON.stringify({ format: FORMAT, files })), 0o444);
    setModes(tmp, 0o555);
    try {
      renameSync(tmp, layout.dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Another run created the same snapshot first: same key, same content.
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw error;
      removeTree(tmp);
    }
  } catch (error) {
    removeTree(tmp);
    throw error;
  }
  return readIndex(layout) ?? new Map();
}

function writeDurably(path: string, bytes: Uint8Array, mode: number): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'wx', mode);
  try {
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Folders read-only, deepest first (files were created with their mode). */
function setModes(dir: string, mode: number): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) setModes(join(dir, entry.name), mode);
  }
  chmodSync(dir, mode);
}

/**
 * Where verified snapshots (and other run caches) live: `RYE_CACHE_DIR` from
 * the caller's environment, else `<user space>/.ai/cache`. Pure.
 */
export function cacheDirOf(
  userSpace: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const fromEnv = env['RYE_CACHE_DIR'];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(userSpace, '.ai', 'cache');
}

/**
 * Remove every verified snapshot (they are rebuilt on the next run of each
 * tool). Returns how many were removed.
 *
 * @throws RyeError EXECUTOR_SNAPSHOT_FAILED when the folder cannot be read.
 */
export function clearSnapshots(cacheDir: string): number {
  const root = join(cacheDir, 'snapshots');
  let names: string[];
  try {
    names = readdirSync(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw new RyeError(
      'EXECUTOR_SNAPSHOT_FAILED',
      `Cannot clear ${root}: ${(error as Error).message}`,
      {
        dir: root,
      },
    );
  }
  for (const name of names) removeTree(join(root, name));
  return names.filter((n) => !n.startsWith('.tmp-')).length;
}

/** Remove a snapshot tree (its folders are read-only); what is already gone is ignored. */
export function removeTree(dir: string): void {
  makeWritable(dir);
  rmSync(dir, { recursive: true, force: true });
}

function makeWritable(dir: string): void {
  try {
    chmodSync(dir, 0o700);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) makeWritable(join(dir, entry.name));
    }
  } catch {
    // gone already: rmSync has nothing to do there either
  }
}
