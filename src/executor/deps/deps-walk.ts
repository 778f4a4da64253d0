/**
 * The dependency walk: every file in a scope, classified by how it can be
 * authenticated, with symlinks vetted. Synchronous on purpose (small trees; an
 * async call per entry costs more than the read). No file content is read.
 */
import { readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { RyeError, isRyeError } from '../../errors/index.js';
import { compareCodePoints } from '../../integrity/index.js';
import { relativeInside, unreadable } from '../../platform/index.js';
import type { VerifyDepsConfig } from '../types.js';

/** One file found in a scope. */
export interface Candidate {
  readonly rel: string;
  readonly abs: string;
  /** The path read: `abs`, or a file symlink's target. */
  readonly real: string;
  /** The listed extension matched, lower-cased; selects the signature format. */
  readonly ext: string;
  /**
   * signed: a listed extension, checked by its signature (or a manifest entry);
   * third-party: under a third-party folder, pinned by hash; other: no listed
   * extension, taken only when a verified bundle manifest lists it.
   */
  readonly kind: 'signed' | 'third-party' | 'other';
}

/** Files without a listed extension are read only when a manifest lists them; the rest are left out. */
export function partition(
  candidates: Candidate[],
  manifestLists: ((absolutePath: string) => boolean) | undefined,
): { taken: Candidate[]; leftOut: string[] } {
  const taken: Candidate[] = [];
  const leftOut: string[] = [];
  for (const c of candidates) {
    if (c.kind !== 'other' || manifestLists?.(c.abs) === true) taken.push(c);
    else leftOut.push(c.rel);
  }
  return { taken, leftOut };
}

/** Walk (sync, Dirent types: no stat per entry) and vet symlinks; sorted by relative path. */
export function collect(base: string, recursive: boolean, config: VerifyDepsConfig): Candidate[] {
  const extensions = new Set(config.extensions.map((e) => e.toLowerCase()));
  const excluded = new Set(config.excludeDirs);
  const thirdPartyDirs = new Set(config.thirdPartyDirs ?? []);
  // Third-party files are taken whatever their extension (a loader reads them all).
  const kindOf = (name: string, thirdParty: boolean): Candidate['kind'] =>
    thirdParty ? 'third-party' : extensions.has(extname(name).toLowerCase()) ? 'signed' : 'other';
  const ext = (name: string): string => extname(name).toLowerCase();
  const files: Candidate[] = [];
  const links: { rel: string; abs: string; thirdParty: boolean }[] = [];
  const pending: [string, string, boolean][] = [[base, '', false]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [dir, relDir, inThirdParty] = next;
    for (const entry of io(dir, () => readdirSync(dir, { withFileTypes: true }))) {
      const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
      const abs = join(dir, entry.name);
      const thirdParty = inThirdParty || thirdPartyDirs.has(entry.name);
      // An excluded name is skipped whatever it is or points to: its content is out of scope.
      const skipped = !inThirdParty && excluded.has(entry.name);
      if (entry.isSymbolicLink()) {
        if (!skipped) links.push({ rel, abs, thirdParty });
      } else if (entry.isDirectory()) {
        if ((recursive || thirdParty) && !skipped) pending.push([abs, rel, thirdParty]);
      } else {
        // FIFOs, sockets and devices with a listed extension fail when read, never skipped.
        const kind = kindOf(entry.name, inThirdParty);
        files.push({ rel, abs, real: abs, ext: ext(entry.name), kind });
      }
    }
  }
  for (const link of links.sort(byRel)) {
    const target = linkTarget(link.abs);
    // The base itself counts as inside (a link to `.`): walked where it lives, no loop.
    if (relativeInside(base, target.path) === undefined) {
      throw new RyeError(
        'INTEGRITY_SYMLINK_ESCAPE',
        `Cannot verify dependencies in ${base}: symlink ${link.rel} points to ${target.path}, outside the folder`,
        { link: link.abs, relativePath: link.rel, target: target.path, base },
      );
    }
    // Folder links inside are not descended (their content is walked where it lives; no loops).
    if (target.isFile) {
      const kind = kindOf(link.rel, link.thirdParty);
      files.push({ rel: link.rel, abs: link.abs, real: target.path, ext: ext(link.rel), kind });
    }
  }
  return files.sort(byRel);
}

/** Where a link leads; a dangling link is resolved textually so an escape is still caught. */
function linkTarget(abs: string): { path: string; isFile: boolean } {
  try {
    const path = realpathSync.native(abs);
    return { path, isFile: statSync(path).isFile() };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unreadable(abs, error);
    // Dangling: nothing there to load or verify, but it must not point outside.
    return {
      path: resolve(
        dirname(abs),
        io(abs, () => readlinkSync(abs)),
      ),
      isFile: false,
    };
  }
}

/** Code-point order, as serializeLockfile and the Python implementation sort paths. */
function byRel(a: { rel: string }, b: { rel: string }): number {
  return compareCodePoints(a.rel, b.rel);
}

/** Run a file-system call; anything but a RyeError becomes FILE_UNREADABLE. */
export function io<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw isRyeError(error) ? error : unreadable(path, error);
  }
}
