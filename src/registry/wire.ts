/**
 * The registry's HTTP documents (protocol version 1), shared by the server
 * that writes them and the client that checks them. Field names are
 * snake_case on the wire. See README.md in this folder for the endpoints.
 */

/** Every error answer: `{ error: { code, message } }` with a matching HTTP status. */
export interface ErrorDocument {
  readonly error: { readonly code: string; readonly message: string };
}

/** `GET /.well-known/rye-registry.json`. */
export interface RegistryKeyDocument {
  readonly protocol: 1;
  readonly algorithm: 'ed25519';
  /** SPKI PEM with its final newline. */
  readonly public_key: string;
  /** First 16 hex of SHA-256 of `public_key`, as for author keys. */
  readonly fingerprint: string;
}

/** The author's side of a published version. */
export interface AuthorDocument {
  readonly fingerprint: string;
  /** The registered SPKI PEM the fingerprint names. */
  readonly public_key: string;
  /** The author's signature payload `rye:signed:…` as pushed (no comment markers). */
  readonly signature: string;
}

export interface AttestationDocument {
  /** Canonical JSON text of the statement: exactly the signed bytes. */
  readonly statement: string;
  /** base64url Ed25519 signature by the registry key. */
  readonly signature: string;
}

/** `GET /v1/items/:type/:namespace/:id?version=` and the answer to a push. */
export interface ItemVersionDocument {
  readonly kind: 'item';
  readonly item_type: 'directive' | 'tool' | 'knowledge';
  readonly namespace: string;
  readonly item_id: string;
  readonly version: string;
  readonly extension: string;
  /** The registry-signed file text (`…|rye-registry@<namespace>`). */
  readonly content: string;
  readonly author: AuthorDocument;
  readonly attestation: AttestationDocument;
  readonly yanked: boolean;
  readonly published_at: string;
}

export interface BundleFileDocument {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
}

/** `GET /v1/bundles/:namespace/:id?version=` and the answer to a push. */
export interface BundleVersionDocument {
  readonly kind: 'bundle';
  readonly namespace: string;
  readonly bundle_id: string;
  readonly version: string;
  /** The registry-signed manifest text. */
  readonly manifest: string;
  readonly author: AuthorDocument;
  readonly attestation: AttestationDocument;
  /** Every file the manifest lists, sorted by path; bytes at `GET /v1/blobs/:sha256`. */
  readonly files: readonly BundleFileDocument[];
  readonly yanked: boolean;
  readonly published_at: string;
}

/** `POST /v1/accounts` and `POST /v1/sessions`. */
export interface SessionDocument {
  readonly username: string;
  /** The API token secret: shown once, stored hashed by the registry. */
  readonly token: string;
  readonly token_id: string;
}

/** `GET /v1/whoami`. */
export interface WhoamiDocument {
  readonly username: string;
  readonly token_id: string;
  readonly keys: readonly { readonly fingerprint: string; readonly added_at: string }[];
}

/**
 * `POST /v1/keys/challenge`: a single-use challenge bound to the caller's
 * account, to sign with the key being registered (`key-proof.ts`). The
 * client signs with its own pinned registry fingerprint and username, not
 * with these echoes, which are informative.
 */
export interface KeyChallengeDocument {
  /** 32 random bytes, base64url without padding. */
  readonly challenge: string;
  readonly registry_fingerprint: string;
  readonly username: string;
  /** `YYYY-MM-DDTHH:MM:SSZ`. */
  readonly expires_at: string;
}

/**
 * `DELETE /v1/keys/:fingerprint`: the key signs no new push of the account;
 * versions it signed stay served, and the fingerprint stays the account's.
 */
export interface KeyRemovedDocument {
  readonly fingerprint: string;
  /** `removed` now, or `already_removed` before. */
  readonly status: 'removed' | 'already_removed';
}

/** `GET /v1/versions?…`. */
export interface VersionsDocument {
  readonly versions: readonly {
    readonly version: string;
    readonly yanked: boolean;
    readonly published_at: string;
    readonly content_hash: string;
  }[];
}

/** `GET /v1/search?…`. */
export interface SearchDocument {
  readonly results: readonly {
    readonly kind: 'item' | 'bundle';
    readonly item_type: 'directive' | 'tool' | 'knowledge' | null;
    readonly namespace: string;
    readonly item_id: string;
    readonly latest_version: string;
    readonly versions: number;
    readonly description: string | null;
    readonly published_at: string;
  }[];
}
