import type { CodeTable } from './code-table.js';

/** Bundles: manifests, their verification and the folders a bundle owns. */
export const BUNDLE_CODES = {
  BUNDLE_NOT_FOUND: {
    class: 'failure',
    hint: 'No manifest for that bundle id in any space: `rye bundle list` shows the bundles; create one with `rye bundle create <bundle_id> --version X.Y.Z`.',
  },
  BUNDLE_EMPTY: {
    class: 'failure',
    hint: 'No files belong to this bundle id; check the id and the --include folders.',
  },
  BUNDLE_MANIFEST_INVALID: {
    class: 'integrity',
    hint: 'The manifest is malformed or hostile (paths outside the project, aliases, bad hashes, too large).',
  },
  BUNDLE_VERIFY_FAILED: {
    class: 'integrity',
    hint: 'Files are missing, changed or unlisted; see the report, then re-sign and `rye bundle create` again.',
  },
  BUNDLE_FILE_UNAUTHENTICATED: {
    class: 'integrity',
    hint: 'A file is neither inline-signed nor listed in a verified bundle manifest; sign it or rebuild the bundle.',
  },
  BUNDLE_FOLDER_CLAIMED: {
    class: 'integrity',
    hint: 'Another bundle of the project owns that folder (its app folder, or the item folder of a bundle nested below); a bundle places files only in its own folders. Choose another app folder, or remove the other bundle first.',
  },
  BUNDLE_FOLDER_OCCUPIED: {
    class: 'integrity',
    hint: "A folder the bundle would write into holds files the bundle does not own (a tool of yours, say); nothing was written. Move those files out of the bundle's folders, or choose another bundle id.",
  },
  BUNDLE_GUARD_UNSUPPORTED: {
    class: 'integrity',
    hint: "This Node cannot check that way of loading a bundle's code (require() of an ES module before Node 22.15); use import().",
  },
  BUNDLE_EXISTS: {
    class: 'failure',
    hint: 'A manifest of this bundle version exists with other content: bump --version (published versions are immutable), or pass --force to replace it.',
  },
} as const satisfies CodeTable;
