import type { CodeTable } from './code-table.js';

/** Integrity: signatures, signing, keys, trusted keys and project approvals. */
export const INTEGRITY_CODES = {
  // Published with the foundation and kept, as every code is: `rye sign` now
  // reports each failed item under its own code and exits 1.
  SIGN_FAILED: {
    class: 'failure',
    hint: 'Some items could not be signed; see the list above (each failed item carries its own code).',
  },
  KEY_EXISTS: {
    class: 'failure',
    hint: 'A key pair exists already; pass --force to replace it (items signed with it stop verifying elsewhere).',
  },
  KEY_NOT_FOUND: {
    class: 'failure',
    hint: 'Run `rye keys generate` first.',
  },
  KEY_INVALID: {
    class: 'failure',
    hint: 'The key file is not an Ed25519 key in PEM form.',
  },
  TRUST_FILE_INVALID: {
    class: 'failure',
    hint: 'A trusted-key file must be a PEM public key or a TOML document as in docs/concepts.md ("Keys and trust").',
  },
  TRUST_KEY_NOT_FOUND: {
    class: 'failure',
    hint: '`rye trust list` shows the trusted fingerprints.',
  },
  TRUST_APPROVALS_INVALID: {
    class: 'failure',
    hint: 'The approved-projects file in <user>/.ai/trust/ is malformed; fix or delete it, then approve your projects again.',
  },
  INTEGRITY_UNSIGNED: {
    class: 'integrity',
    hint: 'Sign the item: `rye sign <type> <item_id>`.',
  },
  INTEGRITY_SIGNATURE_MISPLACED: {
    class: 'integrity',
    hint: 'A signature line only counts on line 1 (line 2 after a `#!` shebang for # comments); re-sign the item.',
  },
  INTEGRITY_MALFORMED_SIGNATURE: {
    class: 'integrity',
    hint: 'The signature line does not have the form rye:signed:TIMESTAMP:HASH:SIG:FP; re-sign the item.',
  },
  INTEGRITY_DUPLICATE_SIGNATURE: {
    class: 'integrity',
    hint: 'An item carries exactly one signature line; remove the extra one and re-sign.',
  },
  INTEGRITY_HASH_MISMATCH: {
    class: 'integrity',
    hint: 'The content changed after signing; review the change, then re-sign it.',
  },
  INTEGRITY_UNTRUSTED_KEY: {
    class: 'integrity',
    hint: 'The signer key is not trusted; `rye trust add <key>` if you trust its owner.',
  },
  INTEGRITY_BAD_SIGNATURE: {
    class: 'integrity',
    hint: 'The Ed25519 signature does not match the content hash: the line was forged or damaged.',
  },
  INTEGRITY_PARTIAL_COVERAGE: {
    class: 'integrity',
    hint: 'The signature covers only the <directive> span; re-sign the directive for full coverage.',
  },
  TRUST_FINGERPRINT_MISMATCH: {
    class: 'integrity',
    hint: 'The fingerprint recorded in the trust file does not match its public key; the file is ignored.',
  },
  TRUST_PROJECT_CHANGED: {
    class: 'integrity',
    hint: 'The project trust store changed after you reviewed it (`rye trust list` shows its sha256); review it again, then approve that digest.',
  },
  TRUST_PROJECT_UNAPPROVED: {
    class: 'integrity',
    hint: "The signer's key is in the project's .ai/trusted_keys/, which you have not approved (or which changed since): review that folder, then `rye trust approve --project <dir>`.",
  },
  INTEGRITY_SYMLINK_ESCAPE: {
    class: 'integrity',
    hint: 'A symbolic link in a verified folder points outside it; remove the link.',
  },
} as const satisfies CodeTable;
