import type { CodeTable } from './code-table.js';

/** Registry: the client, the server and what the client verifies of its answers. */
export const REGISTRY_CODES = {
  REGISTRY_URL_INVALID: {
    class: 'usage',
    hint: 'Registry URLs are http(s)://host[:port], e.g. http://127.0.0.1:8080; set --registry or RYE_REGISTRY_URL.',
  },
  REGISTRY_REF_INVALID: {
    class: 'usage',
    hint: 'Registry references are <namespace>/<item_id>, e.g. alice/utils/greet; versions are semver.',
  },
  REGISTRY_UNREACHABLE: {
    class: 'failure',
    hint: 'The registry did not answer; check the URL and that `rye registry serve` is running.',
  },
  REGISTRY_BAD_RESPONSE: {
    class: 'failure',
    hint: 'The registry answered with something that is not the registry protocol; check the URL.',
  },
  REGISTRY_AUTH_REQUIRED: {
    class: 'failure',
    hint: 'Log in first: `rye registry login --username U --password-stdin`, or set RYE_REGISTRY_TOKEN.',
  },
  REGISTRY_AUTH_INVALID: {
    class: 'failure',
    hint: 'The token or password was refused (wrong, expired or revoked); log in again.',
  },
  REGISTRY_FORBIDDEN: {
    class: 'failure',
    hint: 'Accounts publish only into their own namespace (the username).',
  },
  REGISTRY_USERNAME_TAKEN: {
    class: 'failure',
    hint: 'Choose another username, or log in to the existing account.',
  },
  REGISTRY_NOT_FOUND: {
    class: 'failure',
    hint: 'No such item, bundle or version on this registry; try `rye registry search` or `versions`.',
  },
  REGISTRY_VERSION_CONFLICT: {
    class: 'failure',
    hint: 'Published versions are immutable: bump the version to publish other content.',
  },
  REGISTRY_KEY_TAKEN: {
    class: 'failure',
    hint: 'This public key is registered to another account; each author key belongs to one account.',
  },
  REGISTRY_INVALID_REQUEST: {
    class: 'failure',
    hint: 'The request was malformed; the message says which field.',
  },
  REGISTRY_BODY_TOO_LARGE: {
    class: 'failure',
    hint: 'The request body is over the registry limit (see `rye registry serve --help`).',
  },
  REGISTRY_BLOB_MISSING: {
    class: 'failure',
    hint: 'Upload every file the manifest lists before publishing the bundle; `rye registry push-bundle` does.',
  },
  REGISTRY_PULL_CONFLICT: {
    class: 'failure',
    hint: 'A different file already exists where the pull would write; pass --force to replace it.',
  },
  REGISTRY_RATE_LIMITED: {
    class: 'failure',
    hint: 'Too many sign-up or log-in attempts from this address; wait for the time the message gives.',
  },
  REGISTRY_QUOTA_EXCEEDED: {
    class: 'failure',
    hint: 'The account has used its registry storage quota (published versions are never deleted); ask the operator to raise `rye registry serve --max-account-bytes`.',
  },
  REGISTRY_TOO_MANY_UPLOADS: {
    class: 'failure',
    hint: 'The account already has the most uploads in progress the registry allows; wait for them to finish and retry.',
  },
  REGISTRY_BUSY: {
    class: 'failure',
    hint: 'The registry is receiving as many upload bytes as it holds at once; retry in a moment.',
  },
  REGISTRY_INTERNAL: {
    class: 'failure',
    hint: 'The registry failed on its side; its log says why.',
  },
  REGISTRY_AUTHOR_KEY_UNKNOWN: {
    class: 'integrity',
    hint: 'Sign with a key registered to your account: `rye registry keys add`.',
  },
  REGISTRY_SIGNATURE_INVALID: {
    class: 'integrity',
    hint: 'The content is unsigned, edited after signing or badly signed; sign it again and retry.',
  },
  REGISTRY_BLOB_HASH_MISMATCH: {
    class: 'integrity',
    hint: 'A file does not hash to the SHA-256 it was announced with; nothing was stored.',
  },
  REGISTRY_BLOB_CORRUPT: {
    class: 'integrity',
    hint: 'Stored content no longer matches its hash on the registry; the operator must restore it.',
  },
  REGISTRY_KEY_CHANGED: {
    class: 'integrity',
    hint: 'The registry key differs from the one pinned on first use; re-pin only if you know it was rotated.',
  },
  REGISTRY_ATTESTATION_INVALID: {
    class: 'integrity',
    hint: 'The registry attestation is missing, malformed or not signed by the pinned registry key.',
  },
  REGISTRY_ATTESTATION_MISMATCH: {
    class: 'integrity',
    hint: 'The registry answered for another item, type, version or content than was asked for; nothing was written.',
  },
  REGISTRY_CONTENT_INVALID: {
    class: 'integrity',
    hint: 'Downloaded content failed verification (signature, hash or path); nothing was written.',
  },
  // Issue 11: proof of possession, safe TOFU, declared versions.
  REGISTRY_INSECURE_TRANSPORT: {
    class: 'integrity',
    hint: 'Plain http:// is trusted only on loopback; use https://, or pin the key first with `rye registry pin --fingerprint FP` (credentials still need https).',
  },
  REGISTRY_KEY_PROOF_MISSING: {
    class: 'failure',
    hint: 'Registering an author key needs a signed challenge; `rye registry keys add` makes one.',
  },
  REGISTRY_KEY_PROOF_EXPIRED: {
    class: 'failure',
    hint: 'The key challenge expired (or the registry restarted); run `rye registry keys add` again.',
  },
  REGISTRY_KEY_PROOF_REUSED: {
    class: 'failure',
    hint: 'Each key challenge is good for one attempt; run `rye registry keys add` again.',
  },
  REGISTRY_KEY_PROOF_INVALID: {
    class: 'integrity',
    hint: 'The challenge was not signed by the private key of the key registered; register only your own key.',
  },
  REGISTRY_VERSION_MISMATCH: {
    class: 'usage',
    hint: 'Publish the version the item declares (or edit and re-sign it); --allow-version-mismatch overrides.',
  },
  REGISTRY_INDEX_SIGNATURE_INVALID: {
    class: 'integrity',
    hint: 'The package index is not signed by the pinned registry key (tampered or served by someone else); nothing was written.',
  },
  REGISTRY_INDEX_INVALID: {
    class: 'integrity',
    hint: 'The signed package index is malformed or names another package or registry key; nothing was written.',
  },
  REGISTRY_INDEX_EXPIRED: {
    class: 'integrity',
    hint: 'The registry (or something between) served a package index past its expiry, as a frozen mirror would; nothing was written. Retry, or check your clock.',
  },
  REGISTRY_INDEX_ROLLBACK: {
    class: 'integrity',
    hint: 'The registry (or something between) served an older package index than one already verified here; nothing was written.',
  },
  REGISTRY_INDEX_MISMATCH: {
    class: 'integrity',
    hint: "The registry's answer disagrees with its signed package index (another content hash, or a version it does not list); nothing was written.",
  },
} as const satisfies CodeTable;
