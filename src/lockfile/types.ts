/**
 * Lockfiles (seed 001 + seed 000 "Lockfile Integration"): a tool's resolved
 * chain pinned by content hash, and (v2) the hashes of the dependency files its
 * runtime verified. Field names are the on-disk snake_case ones' camelCase twins;
 * serialize.ts fixes the order and spelling byte for byte.
 */
import type { SpaceName } from '../items/index.js';

/** `space` as recorded: project | user | system, or the Python form `system:<bundle>`. */
export type LockedSpace = string;

export interface LockedElement {
  readonly itemId: string;
  readonly space: LockedSpace;
  readonly toolType: string | null;
  readonly executorId: string | null;
  /** 64 lowercase hex: the element's content hash (what its signature covers). */
  readonly integrity: string;
}

export interface LockedRoot {
  readonly toolId: string;
  readonly version: string;
  readonly integrity: string;
}

/** v2: the dependency files verified before the first run. */
export interface VerifiedDeps {
  /** Project-relative, `/`-separated, never absolute, never `..`. */
  readonly anchorPath: string;
  readonly scope: 'anchor' | 'tool_dir' | 'tool_siblings' | 'tool_file';
  /** Path relative to anchorPath → `sha256:<64 hex of the raw bytes>`, sorted by path. */
  readonly files: Readonly<Record<string, string>>;
}

export interface Lockfile {
  readonly lockfileVersion: 1 | 2;
  /** ISO 8601 UTC, e.g. 2026-02-11T00:00:00Z (Python writes +00:00: both accepted). */
  readonly generatedAt: string;
  readonly root: LockedRoot;
  readonly resolvedChain: readonly LockedElement[];
  /** Registry metadata when pulled from a registry (opaque JSON object), else null. */
  readonly registry: Readonly<Record<string, unknown>> | null;
  /** Present exactly when lockfileVersion is 2. */
  readonly verifiedDeps?: VerifiedDeps;
  /**
   * The lockfile's own signature line (`rye:signed:…`) when it was signed, else
   * null. A signed lockfile by a trusted key unlocks the verified-deps fast path;
   * an unsigned one still pins (it can only add refusals).
   */
  readonly signature: string | null;
}

/**
 * A chain element as this domain pins and checks it: the fields of the
 * executor's verified `ChainElement` a lockfile reads (the executor's type
 * satisfies it; lockfile sits below the executor and never imports it).
 */
export interface ChainLink {
  readonly itemId: string;
  readonly space: SpaceName;
  readonly path: string;
  readonly extension: string;
  readonly toolType: string | null;
  readonly executorId: string | null;
  readonly version: string | null;
  /** The element's content hash (what a lockfile pins). */
  readonly integrity: string;
  /** The bytes that were verified, when the caller read them. */
  readonly raw?: Uint8Array;
}
