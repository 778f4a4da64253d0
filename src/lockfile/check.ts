import { isRyeError } from '../errors/index.js';
import {
  compareCodePoints,
  computeContentHash,
  verifyText,
  type TrustSet,
} from '../integrity/index.js';
import { readTextFileSync } from '../platform/index.js';
import { resolveItem, type SpaceName, type Spaces } from '../items/index.js';
import type { Lockfile, VerifiedDeps } from './types.js';

/** One difference between what a lockfile pins and the files today. */
export interface LockMismatch {
  /** The chain element id, or the dependency's relative path. */
  readonly subject: string;
  readonly kind:
    | 'hash'
    | 'missing'
    | 'shadowed'
    | 'chain'
    | 'dep-changed'
    | 'dep-added'
    | 'dep-removed'
    | 'anchor'
    | 'downgrade';
  readonly path: string | null;
  readonly expected: string | null;
  readonly actual: string | null;
  /**
   * The changed file carries a valid signature by a trusted key (LOCKFILE_STALE
   * rather than LOCKFILE_MISMATCH). Not a claim that it was re-signed after the
   * pin: a signature line's timestamp is not signed, so an update and a
   * rollback to an older signed version look alike and are reported alike.
   */
  readonly stale: boolean;
  /** The fingerprint of that signature, when known. */
  readonly signedBy?: string;
  readonly detail: string;
}

/** The space a recorded element lives in (`system:<bundle>` from Python is system). */
export function lockedSpace(space: string): SpaceName | null {
  if (space === 'project' || space === 'user' || space === 'system') return space;
  return space.startsWith('system:') ? 'system' : null;
}

/**
 * A chain element the caller has just resolved by precedence (the first space
 * holding its id), read and verified: the file and the content hash of the
 * bytes read (`text`, decoded).
 */
export interface ResolvedElement {
  readonly itemId: string;
  readonly space: SpaceName;
  readonly path: string;
  readonly extension: string;
  readonly integrity: string;
  readonly text: () => string;
}

/**
 * Compare every pinned chain element with the file it names today: re-resolve
 * it from its recorded space and hash it, then make sure the id still resolves
 * to that same file (a higher-precedence file shadowing a pinned runtime is a
 * mismatch, not a silent switch). Reads files; never throws for a mismatch.
 *
 * `resolved`: the chain the caller has just built, when it has. A pinned
 * element it holds with the same id in the same space is that very file (the
 * id resolves there by precedence, so nothing shadows it) with that content
 * hash, and is compared without resolving and reading it again; the others
 * are looked up as above.
 */
export async function checkChainPins(
  spaces: Spaces,
  lockfile: Lockfile,
  trust: TrustSet,
  resolved: readonly ResolvedElement[] = [],
): Promise<LockMismatch[]> {
  const out: LockMismatch[] = [];
  for (const element of lockfile.resolvedChain) {
    const space = lockedSpace(element.space);
    const base = { subject: element.itemId, expected: element.integrity, stale: false };
    if (space === null) {
      out.push({
        ...base,
        kind: 'missing',
        path: null,
        actual: null,
        detail: `unknown space ${element.space}`,
      });
      continue;
    }
    const known = resolved.find((e) => e.itemId === element.itemId && e.space === space);
    if (known !== undefined) {
      if (known.integrity !== element.integrity)
        out.push(changed(base, known.path, known.integrity, space, known, trust));
      continue;
    }
    let path: string;
    let extension: string;
    try {
      ({ path, extension } = await resolveItem(spaces, 'tool', element.itemId, [space]));
    } catch (error) {
      // Defensive: resolveItem throws only RyeErrors; a bug must not read as a mismatch.
      /* v8 ignore if */
      if (!isRyeError(error)) throw error;
      out.push({
        ...base,
        kind: 'missing',
        path: null,
        actual: null,
        detail: `no longer resolves in ${space} space (${error.code})`,
      });
      continue;
    }
    let text: string | null;
    try {
      text = readTextFileSync(path);
    } catch {
      text = null;
    }
    const actual = text === null ? null : computeContentHash(text, 'tool', extension);
    if (actual !== element.integrity) {
      const file = text === null ? null : { extension, text: () => text };
      out.push(changed(base, path, actual, space, file, trust));
    }
    const now = await resolveItem(spaces, 'tool', element.itemId).catch(() => null);
    if (now !== null && now.path !== path) {
      out.push({
        ...base,
        kind: 'shadowed',
        path: now.path,
        actual: now.space,
        detail: `now resolves to ${now.path} in ${now.space} space, shadowing the pinned ${space} file`,
      });
    }
  }
  return out;
}

/** A pinned element whose file's content hash is `actual` now: stale when a trusted key signed it. */
function changed(
  base: { subject: string; expected: string; stale: boolean },
  path: string,
  actual: string | null,
  space: SpaceName,
  file: { readonly extension: string; readonly text: () => string } | null,
  trust: TrustSet,
): LockMismatch {
  const signer = file === null ? null : trustedSigner(file.text(), file.extension, trust);
  return {
    ...base,
    kind: 'hash',
    path,
    actual,
    stale: signer !== null,
    ...(signer === null ? {} : { signedBy: signer }),
    detail: `content changed in ${space} space`,
  };
}

/**
 * Differences between pinned dependency hashes and the files found today
 * (`current`: relative path → raw SHA-256 hex): changed, added and removed
 * files, each named. Pure.
 */
export function compareDeps(
  pinned: VerifiedDeps,
  current: ReadonlyMap<string, string>,
): LockMismatch[] {
  const out: LockMismatch[] = [];
  for (const [rel, expected] of Object.entries(pinned.files)) {
    const raw = current.get(rel);
    const now = raw === undefined ? undefined : `sha256:${raw}`;
    if (now === undefined) {
      out.push({
        subject: rel,
        kind: 'dep-removed',
        path: null,
        expected,
        actual: null,
        stale: false,
        detail: 'removed since the lockfile was written',
      });
    } else if (now !== expected) {
      out.push({
        subject: rel,
        kind: 'dep-changed',
        path: null,
        expected,
        actual: now,
        stale: false,
        detail: 'changed since the lockfile was written',
      });
    }
  }
  for (const [rel, raw] of current) {
    const actual = `sha256:${raw}`;
    if (!Object.hasOwn(pinned.files, rel)) {
      out.push({
        subject: rel,
        kind: 'dep-added',
        path: null,
        expected: null,
        actual,
        stale: false,
        detail: 'added since the lockfile was written',
      });
    }
  }
  return out.sort((a, b) => compareCodePoints(a.subject, b.subject));
}

/**
 * The fingerprint of the key whose valid signature `text` (a tool file with
 * this extension) carries when that key is in `trust`, else null. Decides
 * nothing from the signature line's timestamp: it is not covered by the
 * signature, so anyone can rewrite it.
 */
export function trustedSigner(text: string, extension: string, trust: TrustSet): string | null {
  const result = verifyText(text, { itemType: 'tool', extension, trust });
  return result.ok ? result.fingerprint : null;
}
