/**
 * Bundles (seed 002, "Layer 2"): a signed manifest listing every file of an app
 * bundle — its items, plans, lockfiles and declared app folders — by the
 * SHA-256 of its raw bytes. Files that cannot carry an inline signature (JSX,
 * CSS, images) are authenticated by the manifest alone.
 */
import type { ItemType } from '../items/index.js';

/** One listed file. */
export interface ManifestEntry {
  /** SHA-256 of the file's raw bytes, 64 lowercase hex. */
  readonly sha256: string;
  /** The file carries its own `rye:signed:` line (checked too on verify). */
  readonly inlineSigned: boolean;
}

export interface BundleInfo {
  /** The bundle id, e.g. `apps/task-manager` (an item-id-shaped path). */
  readonly id: string;
  /** Semver. */
  readonly version: string;
  /** ISO 8601 UTC, seconds. */
  readonly createdAt: string;
  /** The item an agent starts from, or null (Python wrote `entrypoint: ''`). */
  readonly entrypoint: { readonly itemType: ItemType; readonly itemId: string } | null;
  readonly description: string;
  /** Declared app folders (project-relative), e.g. `task-manager`. */
  readonly includes: readonly string[];
}

/** The manifest body (the `#` signature line is handled by the integrity layer). */
export interface BundleManifest {
  readonly bundle: BundleInfo;
  /** Project-relative `/`-separated path → entry; iteration order is sorted by path. */
  readonly files: ReadonlyMap<string, ManifestEntry>;
}

/** Where a bundle's manifest lives: `<base>/.ai/bundles/<bundle_id>/manifest.yaml`. */
export const MANIFEST_FILE = 'manifest.yaml';
