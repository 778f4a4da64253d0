/**
 * Every error code the system can raise, in one place. Codes are API: they are
 * never renamed or reused. Each code belongs to a class that fixes its CLI exit
 * code (see `exitCodeFor`) and carries a one-line hint for humans.
 */
export type ErrorClass = 'usage' | 'failure' | 'integrity';

interface CodeInfo {
  readonly class: ErrorClass;
  readonly hint: string;
}

export const ERROR_CODES = {
  // Usage: the caller asked for something malformed (exit 2).
  USAGE_INVALID_ARGUMENT: {
    class: 'usage',
    hint: 'Check the command line; `rye <command> --help` lists the options.',
  },
  ITEM_ID_INVALID: {
    class: 'usage',
    hint: 'Item ids are relative paths without extension, e.g. rye/core/bundler/bundler.',
  },
  ITEM_TYPE_INVALID: {
    class: 'usage',
    hint: 'Item types are directive, tool or knowledge.',
  },
  SPACE_INVALID: {
    class: 'usage',
    hint: 'Spaces are project, user or system.',
  },
  ITEM_ID_RESERVED: {
    class: 'usage',
    hint: 'Ids under rye/ belong to the standard library in system space: they never resolve from, publish to or pull into a project or user space.',
  },

  REGISTRY_URL_INVALID: {
    class: 'usage',
    hint: 'Registry URLs are http(s)://host[:port], e.g. http://127.0.0.1:8080; set --registry or RYE_REGISTRY_URL.',
  },
  REGISTRY_REF_INVALID: {
    class: 'usage',
    hint: 'Registry references are <namespace>/<item_id>, e.g. alice/utils/greet; versions are semver.',
  },

  // Operational failures (exit 1).
  ITEM_NOT_FOUND: {
    class: 'failure',
    hint: 'Item ids resolve project → user → system; check the id and --project.',
  },
  ITEM_AMBIGUOUS: {
    class: 'failure',
    hint: 'Two files share this id with different extensions in one space: remove one.',
  },
  ITEM_UNSUPPORTED_EXTENSION: {
    class: 'failure',
    hint: 'This file extension is not a known item format for that item type.',
  },
  VALIDATION_FAILED: {
    class: 'failure',
    hint: 'Fix every listed issue in the item metadata, then sign again.',
  },
  METADATA_PARSE_FAILED: {
    class: 'failure',
    hint: 'The item metadata could not be parsed without executing anything; fix its syntax.',
  },
  FILE_UNREADABLE: {
    class: 'failure',
    hint: 'Check that the path exists and is readable.',
  },
  FILE_WRITE_FAILED: {
    class: 'failure',
    hint: 'Check permissions and free space; nothing was changed.',
  },
  SPACE_READ_ONLY: {
    class: 'failure',
    hint: 'System space is read-only; work in project or user space instead.',
  },
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

  EXECUTOR_CHAIN_CYCLE: {
    class: 'failure',
    hint: 'Two chain elements name each other as executor_id; fix the executor_id values.',
  },
  EXECUTOR_CHAIN_TOO_LONG: {
    class: 'failure',
    hint: 'A chain may have at most 10 links (tool → runtimes → primitive).',
  },
  EXECUTOR_MISSING_LINK: {
    class: 'failure',
    hint: 'An executor_id names an item that does not resolve in any space.',
  },
  EXECUTOR_ROOT_NOT_PRIMITIVE: {
    class: 'failure',
    hint: 'The last element of a chain (executor_id null) must be a primitive.',
  },
  EXECUTOR_PRIMITIVE_UNKNOWN: {
    class: 'failure',
    hint: 'Only the built-in primitives rye/core/primitives/subprocess and http_client can run.',
  },
  EXECUTOR_NOT_A_TOOL: {
    class: 'failure',
    hint: 'Only tool entry points (with tool_type and executor_id) can be executed.',
  },
  EXECUTOR_CONFIG_INVALID: {
    class: 'failure',
    hint: 'A runtime or tool configuration (config, env_config, anchor, verify_deps) is malformed.',
  },
  EXECUTOR_SNAPSHOT_FAILED: {
    class: 'failure',
    hint: 'The verified snapshot a tool runs from could not be written or read under RYE_CACHE_DIR (default <user>/.ai/cache); check that folder.',
  },
  EXECUTOR_SOURCE_CHANGED: {
    class: 'integrity',
    hint: 'A file changed while it was being verified; run again, and find out what is writing to it.',
  },
  EXECUTOR_THIRD_PARTY_UNPINNED: {
    class: 'integrity',
    hint: 'Third-party code (node_modules) runs only once you pinned it: review it, then run `rye lock update <tool>`.',
  },
  EXECUTOR_DEPENDENCY_SIGNER_MIXED: {
    class: 'integrity',
    hint: "A file in the tool's folder is signed by another key than the tool's or yours (a file planted by someone else's bundle, say); remove it, or review it and re-sign it with `rye sign`.",
  },
  PARAMS_INVALID: {
    class: 'usage',
    hint: "The parameters do not match the tool's config_schema; every problem is listed.",
  },
  SANDBOX_UNAVAILABLE: {
    class: 'failure',
    hint: 'The sandbox could not start (details.errno and details.cause say why); nothing ran. Install bubblewrap (apt-get install bubblewrap) and allow unprivileged user namespaces, or, as the operator only, pass --no-sandbox or set `sandbox: off` in ~/.ai/config.yaml. See docs/sandbox.md.',
  },
  SANDBOX_PATH_REFUSED: {
    class: 'integrity',
    hint: "A path of the tool's permissions goes through a symlink, out of the project, or into what no sandbox sees; nothing ran. Fix the project tree or the tool's permissions (docs/sandbox.md).",
  },
  SANDBOX_CONFIG_INVALID: {
    class: 'usage',
    hint: 'The user config (~/.ai/config.yaml) says `sandbox: on` or `sandbox: off`; any other value is refused, never read as off.',
  },
  SANDBOX_NOT_FOUND: {
    class: 'usage',
    hint: 'No running sandbox has that id; `rye sandbox list` shows the daemons rye started.',
  },
  PERMISSIONS_INVALID: {
    class: 'integrity',
    hint: "The tool's signed permissions are malformed (details.issues has each one with its code); nothing ran. Fix them and sign the tool again (docs/sandbox.md).",
  },
  CHANNEL_REQUEST_INVALID: {
    class: 'usage',
    hint: 'A request on the operation channel (fd 3) is one JSON line {"id", "op", "input"} of at most 1 MiB, op one of execute, search, load, sign (docs/sandbox.md).',
  },
  CHANNEL_DENIED: {
    class: 'failure',
    hint: "The tool call this channel belongs to has ended, or tools ran tools through the channel deeper than allowed (3); nothing ran. A request outside the tool's `rye` permission or the caller's capabilities is CAPABILITY_DENIED.",
  },
  EXECUTE_COMMAND_NOT_FOUND: {
    class: 'failure',
    hint: 'The interpreter or command was not found; install it or set the runtime variable (e.g. RYE_PYTHON).',
  },
  EXECUTE_ARGUMENTS_TOO_LARGE: {
    class: 'failure',
    hint: 'The command line is over what the system accepts (on Linux 128 KiB per argument, the parameters included); pass large content another way, e.g. in a file the tool reads.',
  },
  EXECUTE_TIMEOUT: {
    class: 'failure',
    hint: 'The tool ran past its timeout and its whole process tree was killed.',
  },
  EXECUTE_CANCELLED: {
    class: 'failure',
    hint: 'The call was cancelled (a thread cancel, fail_fast or an MCP client): the tool was not started, or its process tree was killed.',
  },
  EXECUTE_TOOL_FAILED: {
    class: 'failure',
    hint: 'The tool ran and reported failure; see data for its output.',
  },
  HTTP_REQUEST_FAILED: {
    class: 'failure',
    hint: 'The HTTP request failed after its retries; check the URL and the service.',
  },

  LOCKFILE_NOT_FOUND: {
    class: 'failure',
    hint: '`rye lock list` shows the lockfiles; a tool gets one on its first successful run.',
  },

  BUNDLE_NOT_FOUND: {
    class: 'failure',
    hint: 'No manifest for that bundle id in any space: `rye bundle list` shows the bundles; create one with `rye bundle create <bundle_id> --version X.Y.Z`.',
  },
  BUNDLE_EMPTY: {
    class: 'failure',
    hint: 'No files belong to this bundle id; check the id and the --include folders.',
  },

  // Integrity refusals (exit 3).
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
  FILE_BINARY: {
    class: 'integrity',
    hint: 'Items are UTF-8 text; binary content cannot carry an inline signature.',
  },
  FILE_TOO_LARGE: {
    class: 'integrity',
    hint: 'The file is over its size cap (8 MiB for an item; the message names the cap).',
  },
  PARSE_UNSAFE_CONTENT: {
    class: 'integrity',
    hint: 'DOCTYPE/entity declarations, YAML alias expansion, deep nesting, duplicate keys and inputs past the token caps are refused in items, manifests and trust files.',
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

  EXECUTOR_SPACE_VIOLATION: {
    class: 'integrity',
    hint: 'A chain element depends on a higher-precedence space (e.g. a system runtime on a project file): a shadowing attempt.',
  },
  EXECUTOR_DOTENV_REFUSED: {
    class: 'integrity',
    hint: 'A signed .env may not set names that steer an interpreter or loader (PATH, NODE_*, PYTHON*, LD_*, RYE_*, …); set them in your own environment, remove them and `rye dotenv sign`.',
  },
  INTEGRITY_SYMLINK_ESCAPE: {
    class: 'integrity',
    hint: 'A symbolic link in a verified folder points outside it; remove the link.',
  },
  EXECUTOR_IDENTITY_MISMATCH: {
    class: 'integrity',
    hint: 'A chain element is signed as another item (its category or name is not where it was found): a signed file copied over another id.',
  },

  LOCKFILE_MISMATCH: {
    class: 'integrity',
    hint: 'The files differ from what the lockfile pins; review the change, then `rye lock update <tool_id>`.',
  },
  LOCKFILE_STALE: {
    class: 'integrity',
    hint: 'An item changed since the lockfile and carries a valid trusted signature (an update or a rollback: signature dates are not authenticated); review it, then `rye lock update <tool_id>`.',
  },
  LOCKFILE_ROLLBACK: {
    class: 'integrity',
    hint: 'A lockfile signed by your key pins a newer version of this tool; to run the older one on purpose, `rye lock remove <tool_id> --version <newer>`.',
  },
  LOCKFILE_MISSING: {
    class: 'integrity',
    hint: 'Frozen mode runs only pinned tools; create the lockfile with `rye lock update <tool_id>` and commit it.',
  },
  LOCKFILE_INVALID: {
    class: 'integrity',
    hint: 'The lockfile is malformed or points outside its space; delete it or `rye lock update <tool_id>`.',
  },
  LOCKFILE_VERSION_UNSUPPORTED: {
    class: 'integrity',
    hint: 'This rye reads lockfile versions 1 and 2.',
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

  // Capabilities and capability tokens (threads, issues 13 and 15; docs/capabilities.md).
  CAPABILITY_INVALID: {
    class: 'usage',
    hint: 'Capabilities are rye.<verb>.<type>.<pattern> (verb execute|search|load|sign, type tool|directive|knowledge) with pattern *, an exact id or prefix/*; see docs/capabilities.md.',
  },
  CAPABILITY_DENIED: {
    class: 'integrity',
    hint: 'The authority this call runs under does not hold the capability named; grant it in the directive <permissions> (or --caps), or run it as the operator.',
  },
  CAPABILITY_COMMAND_REFUSED: {
    class: 'integrity',
    hint: 'A process held to a RYE_CAP_TOKEN runs only the four operations, thread commands on threads it reaches and an attenuating `rye cap mint`; run anything else as the operator, without the token (docs/capabilities.md).',
  },
  CAPABILITY_TOKEN_INVALID: {
    class: 'integrity',
    hint: 'The capability token (RYE_CAP_TOKEN or a ceiling file) failed the check in details.reason; nothing runs under it. Mint a new one with `rye cap mint`.',
  },

  // The four operations (threads/ops).
  OPERATION_INPUT_INVALID: {
    class: 'usage',
    hint: "The call does not match the operation's schema (details.issues lists each problem); unknown keys are refused.",
  },
  THREAD_RUNNER_UNAVAILABLE: {
    class: 'failure',
    hint: 'Directives do not run as threads in this release yet; `--plan` shows the exact request a thread would send.',
  },

  // Directives as programs (issue 13, src/threads/directive).
  INPUTS_INVALID: {
    class: 'usage',
    hint: "The inputs do not match the directive's <inputs>: every problem is listed (unknown, missing required, wrong type); see docs/directives.md.",
  },

  // Providers (threads, THREADS.md section 7): descriptors, model resolution, provider requests.
  PROVIDER_NOT_FOUND: {
    class: 'failure',
    hint: 'Providers resolve from user then system space only (rye/agent/providers/<id> under .ai/tools/); check the id, <model provider> and $RYE_PROVIDER.',
  },
  PROVIDER_CONFIG_INVALID: {
    class: 'failure',
    hint: 'Fix every listed issue in the provider descriptor (or in ANTHROPIC_BASE_URL / OPENAI_BASE_URL), then sign it again; see docs/providers.md.',
  },
  PROVIDER_INSECURE_TRANSPORT: {
    class: 'integrity',
    hint: 'Provider credentials travel only over https://, or plain http:// to a loopback address (127.0.0.1, ::1, localhost).',
  },
  PROVIDER_MODEL_UNKNOWN: {
    class: 'failure',
    hint: 'Name a model the provider descriptor lists under models, or a tier it maps under tiers.',
  },
  PROVIDER_AUTH_MISSING: {
    class: 'failure',
    hint: "Set the environment variable the provider descriptor's auth.env names (in your shell, not a project .env).",
  },
  PROVIDER_AUTH_FAILED: {
    class: 'failure',
    hint: 'The provider refused the credential (401/403): check the key in the variable auth.env names and its permissions; nothing was retried.',
  },
  PROVIDER_QUOTA_EXCEEDED: {
    class: 'failure',
    hint: 'The provider reports a quota, billing or spend limit: retrying will not help until the account is topped up or the limit raised.',
  },
  PROVIDER_REQUEST_REJECTED: {
    class: 'failure',
    hint: 'The provider refused the request itself (400/404/413/422): the details carry its message; a retry would be refused the same way.',
  },
  PROVIDER_REQUEST_FAILED: {
    class: 'failure',
    hint: 'The provider failed transiently (429, 5xx, 529, reset) on every attempt allowed; retry later or check the provider status.',
  },
  PROVIDER_RESPONSE_INVALID: {
    class: 'failure',
    hint: 'The provider sent a response that does not follow its wire format (malformed tool arguments, duplicate call ids, a cut stream).',
  },
  PROVIDER_REQUEST_ABORTED: {
    class: 'failure',
    hint: 'The provider request was aborted (cancel, deadline or interrupt) before a response arrived.',
  },

  // Search, load and list over the three spaces (catalog, issue 13).
  SEARCH_QUERY_TOO_LONG: {
    class: 'usage',
    hint: 'Search queries are capped at 1 KiB (UTF-8) and 32 words; shorten the query.',
  },
  SEARCH_INDEX_FAILED: {
    class: 'failure',
    hint: 'The search index under <cache>/search (RYE_CACHE_DIR, default <user>/.ai/cache) could not be opened or written; check that folder. The index is a cache: deleting it is safe.',
  },
  LOAD_IDENTITY_MISMATCH: {
    class: 'integrity',
    hint: 'The item is signed as another id (its declared name or category is not where it was found): a signed file copied over another id is refused.',
  },

  // Threads (issue 14 foundation): thread ids, thread records, tree locks,
  // transcripts and the budget ledger (THREADS.md sections 6, 8, 9).
  THREAD_ID_INVALID: {
    class: 'usage',
    hint: 'Thread ids look like <leaf>-<26 base32 chars>, e.g. implement_feature-01jf3k…; `rye thread list` shows them.',
  },
  THREAD_NOT_FOUND: {
    class: 'failure',
    hint: 'No thread with that id under .ai/threads/ of this project; `rye thread list` shows them.',
  },
  THREAD_RECORD_INVALID: {
    class: 'integrity',
    hint: "The thread's thread.json is unsigned, edited, signed by an untrusted key, malformed or another thread's; nothing was run.",
  },
  THREAD_RECORD_FOREIGN: {
    class: 'integrity',
    hint: "The thread's record is signed by a trusted key that is not yours: it is someone else's thread (a project author's, a pulled bundle's). `rye thread show` displays it; resume, rebase, cancel and wait act only on threads your own key signed.",
  },
  THREAD_CANCELLED: {
    class: 'failure',
    hint: 'The thread was cancelled (rye thread cancel, fail_fast, a parent or an MCP client); its transcript is sealed and it can be resumed.',
  },
  THREAD_LOCKED: {
    class: 'failure',
    hint: "Another live rye process owns this thread's tree; wait for it, or cancel it with `rye thread cancel`.",
  },
  THREAD_INTERRUPTED: {
    class: 'failure',
    hint: 'The process running this call died before it finished; resume the thread to continue.',
  },
  TRANSCRIPT_TAMPERED: {
    class: 'integrity',
    hint: 'The transcript, a checkpoint or an artifact changed after it was written (the error names the seq); nothing was resumed.',
  },
  TRANSCRIPT_INVALID: {
    class: 'integrity',
    hint: 'The transcript chains and verifies but an event is not one rye writes; nothing was resumed.',
  },
  TRANSCRIPT_EVENT_TOO_LARGE: {
    class: 'failure',
    hint: 'An event stays over 512 KiB even with its payload fields spilled to artifacts, or a field is over the artifact cap.',
  },
  BUDGET_AMOUNT_INVALID: {
    class: 'usage',
    hint: 'Amounts are decimal strings of USD with at most 9 fractional digits, e.g. "1.00"; no floats, exponents or negatives.',
  },
  BUDGET_UNPRICED_MODEL: {
    class: 'failure',
    hint: "A finite spend limit needs the model's input and output prices in the provider data; add them or set spend to 0 (unlimited).",
  },
  BUDGET_DENIED: {
    class: 'failure',
    hint: "The request's worst-case cost does not fit what an account on the thread's path has left (raise the spend limit), or an account on the path is closed because its thread ended (details.reason: closed; resume the tree's root instead).",
  },
  BUDGET_BOUND_VIOLATED: {
    class: 'failure',
    hint: 'The provider reported usage above the reserved worst case; the thread was stopped and charged its reservation.',
  },
  BUDGET_ACCOUNT_INVALID: {
    class: 'failure',
    hint: 'The budget account is unknown, exists already, or its parent is missing, closed or in another tree (a bug in the caller).',
  },
  BUDGET_ATTEMPT_INVALID: {
    class: 'failure',
    hint: 'The ledger attempt is unknown, reused, or not in a state that allows this step (a bug in the caller).',
  },

  // Issue 12 (a newcomer's first day): project folders, `rye init`, bundle re-creation.
  PROJECT_NOT_FOUND: {
    class: 'usage',
    hint: '--project names an existing project folder (the one holding .ai/); check the path, or create it with `rye init --project DIR`.',
  },
  PROJECT_INIT_CONFLICT: {
    class: 'failure',
    hint: '`rye init` creates only what is missing and never replaces a file or follows a link: move the named path away, then run it again.',
  },
  BUNDLE_EXISTS: {
    class: 'failure',
    hint: 'A manifest of this bundle version exists with other content: bump --version (published versions are immutable), or pass --force to replace it.',
  },

  // The MCP server (issue 16, src/mcp; docs/mcp.md).
  MCP_TOOL_UNKNOWN: {
    class: 'usage',
    hint: 'The rye MCP server offers four tools: execute, search, load and sign (tools/list shows their schemas).',
  },
  MCP_CEILING_INVALID: {
    class: 'usage',
    hint: '--ceiling takes a directive id or a file holding one rye-cap-v1 token (at most 64 KiB); RYE_CAP_TOKEN must hold a token. See docs/mcp.md.',
  },
  MCP_REVOCATIONS_INVALID: {
    class: 'integrity',
    hint: 'The ceiling revocation list (<user>/.ai/capabilities/revoked) is unreadable, too large or has a line that is not a 32-hex-digit jti; every call is refused until it is fixed.',
  },
  MCP_SERVER_STOPPING: {
    class: 'failure',
    hint: 'The MCP server is shutting down (stdin closed, a signal, or its parent exited) and admits no new calls.',
  },
  MCP_HTTP_BIND_REFUSED: {
    class: 'usage',
    hint: 'The HTTP transport listens on loopback only (127.0.0.1, ::1, localhost); pass --allow-remote to bind another address, and keep the bearer token secret.',
  },
  MCP_HTTP_UNAUTHORIZED: {
    class: 'integrity',
    hint: 'Send `Authorization: Bearer <token>` with the token rye mcp serve printed on stderr (or the one set in RYE_MCP_HTTP_TOKEN).',
  },
  MCP_HTTP_HOST_REFUSED: {
    class: 'integrity',
    hint: 'The Host or Origin header names no address this server listens on (a DNS rebinding attempt looks like this); connect to the printed URL.',
  },
  MCP_HTTP_SESSION_UNKNOWN: {
    class: 'failure',
    hint: 'The Mcp-Session-Id is not a live session of this server (it ended or the server restarted); initialize a new session.',
  },

  // The thread runner (issue 14, src/threads/loop; THREADS.md sections 2, 5).
  THREAD_LIMIT_EXCEEDED: {
    class: 'failure',
    hint: 'The thread reached one of its limits (details.limit, current, max). To go on, the operator sets it for this thread: `rye thread resume <id> --message … --limit <limit>=<n>` (signed into the transcript); or raise it in the directive <limits> and sign it again (on `rye execute`, `--limit` only lowers a limit).',
  },
  THREAD_DENIED_REPEATEDLY: {
    class: 'integrity',
    hint: 'The model asked for calls outside its capabilities 5 times in a row; the thread was stopped. Check the transcript for a prompt injection.',
  },
  THREAD_NESTED_DIRECTIVE: {
    class: 'failure',
    hint: 'A directive can run as a child thread only inside a thread tree (not from a thread run alone, nor under RYE_CAP_TOKEN); the model got this as an error result.',
  },
  THREAD_TOOL_UNKNOWN: {
    class: 'usage',
    hint: 'The model called a tool the thread does not offer; it got this as an error result.',
  },
  THREAD_NO_RETURN: {
    class: 'failure',
    hint: 'The directive declares outputs but the model stopped without a valid directive_return, even after a reminder.',
  },
  THREAD_RESUME_PINNED: {
    class: 'integrity',
    hint: 'The directive changed since the thread started (details name both hashes and capability sets); a thread resumes only under the directive it was admitted with; `rye thread resume --rebase` ends it `continued` and runs a successor under the new one.',
  },
  THREAD_RESUME_NO_USAGE: {
    class: 'failure',
    hint: 'A provider attempt of the thread has no usage on record in the transcript or the ledger, so its cost cannot be carried over; the thread cannot resume.',
  },

  // The project file-system and git system tools (issue 17: rye/file-system/*,
  // rye/core/git). The tools report these in their output's `code` (the call
  // itself fails with EXECUTE_TOOL_FAILED).
  FS_PATH_INVALID: {
    class: 'usage',
    hint: 'File-system tools take project-relative paths: no absolute path, no .. segment, no NUL, no backslash; one fs_write call names each file once, and either path and content or files.',
  },
  FS_PATH_ESCAPE: {
    class: 'integrity',
    hint: 'The path resolves (through a symbolic link) outside the project folder; nothing was read or written.',
  },
  FS_PATH_LINK: {
    class: 'integrity',
    hint: 'A write never passes through a symbolic link: a component of the path is a link (details.link); nothing was written.',
  },
  FS_PATH_PROTECTED: {
    class: 'integrity',
    hint: 'Inside .ai/ only .ai/plans/ is writable, and .git folders are never written; nothing was written.',
  },
  FS_PROJECT_MISSING: {
    class: 'failure',
    hint: 'The tool was started without a readable project folder (--project-path).',
  },
  FS_NOT_FOUND: {
    class: 'failure',
    hint: 'The file or folder does not exist in the project; list the folder with rye/file-system/fs_list.',
  },
  FS_NOT_A_FILE: {
    class: 'failure',
    hint: 'The path names a folder or something else that is not a regular file.',
  },
  FS_NOT_A_FOLDER: {
    class: 'failure',
    hint: 'fs_list lists folders, and a write needs folders above its file: the path names a file where a folder must be.',
  },
  FS_EXISTS: {
    class: 'failure',
    hint: 'The file exists and the write asked for overwrite: false.',
  },
  FS_TOO_LARGE: {
    class: 'failure',
    hint: 'fs_read returns at most 1 MiB; fs_write accepts at most 96 KiB of content and 64 files per call (tool parameters travel as one command-line argument).',
  },
  FS_NOT_TEXT: {
    class: 'failure',
    hint: 'fs_read returns UTF-8 text only; the file holds other bytes.',
  },
  FS_IO_FAILED: {
    class: 'failure',
    hint: 'The operating system refused the read or write (details.cause: its error code).',
  },
  GIT_PARAMS_INVALID: {
    class: 'usage',
    hint: 'rye/core/git takes a project-relative repo, repo-relative paths, a date as YYYY-MM-DDTHH:MM:SSZ, and either message or app, plan and summary.',
  },
  GIT_REPO_MISSING: {
    class: 'failure',
    hint: 'The repository folder does not exist in the project (commit creates the repository, not its folder).',
  },
  GIT_REPO_UNSAFE: {
    class: 'integrity',
    hint: 'The repository folder leads outside the project, or its .git is a file or link pointing elsewhere; git was not run on it.',
  },
  GIT_CONFIG_UNSAFE: {
    class: 'integrity',
    hint: "The repository's own config sets keys that make git run programs (hooks path, fsmonitor, filters, textconv, includes…; details.keys); nothing was staged or committed. Remove them with git config --unset.",
  },
  GIT_NOTHING_TO_COMMIT: {
    class: 'failure',
    hint: 'The paths given have no change since the last commit.',
  },
  GIT_FAILED: {
    class: 'failure',
    hint: 'git could not be run or reported an error (its message is included); check that git is installed.',
  },
  // Hooks and compaction (issue 15, src/threads/hooks; THREADS.md section 12).
  THREAD_CONTEXT_EXHAUSTED: {
    class: 'failure',
    hint: 'The conversation outgrew the model context window (measured as characters / 4); declare a context_window_pressure hook whose control answer is a {summary}, or give the task a larger model.',
  },
  THREAD_HOOK_UNAVAILABLE: {
    class: 'failure',
    hint: 'A <directive> hook needs child threads, which this process does not run; the hook was recorded as unavailable and the thread went on.',
  },
  THREAD_HOOK_FAILED: {
    class: 'failure',
    hint: 'A hook child thread ended without completing (see its transcript); the owner thread went on.',
  },
  THREAD_HOOK_CONTROL_INVALID: {
    class: 'failure',
    hint: 'A control hook answered outputs that do not match its event schema ({action: retry|fail} for error, {summary} for context_window_pressure); the answer was ignored.',
  },
  // MCP threads, detached roots, thread tools and `rye cap` (issue 16; docs/mcp.md, THREADS.md sections 11, 13).
  THREAD_FAILED: {
    class: 'failure',
    hint: 'The thread ended without completing (details.thread_status: failed, cancelled, killed…); details hold its outputs and cost, `rye thread show <id>` its record.',
  },
  THREAD_SPAWN_FAILED: {
    class: 'failure',
    hint: 'The detached rye worker exited or stalled before it admitted the thread, so no thread exists; run the directive with thread "wait" (or without --spawn) to see why.',
  },
  CAPABILITY_TTL_INVALID: {
    class: 'usage',
    hint: '--ttl is a duration such as 90s, 30m, 12h or 7d (at least 1 s, at most 365 d).',
  },
  // Thread control across processes (issue 14: rye thread cancel|wait|tail; docs/threads.md).
  THREAD_CANCEL_TIMEOUT: {
    class: 'failure',
    hint: "The thread's owner did not end it in time after the cancel request; the request stays recorded and the owner ends the thread when it next looks (every 100 ms). Check the process with `rye thread show`.",
  },

  // Internal errors: a bug, reported with exit 1.
  INTERNAL_ERROR: {
    class: 'failure',
    hint: 'This is a bug in rye; please report it with the command you ran.',
  },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

const EXIT_CODES: Record<ErrorClass, number> = { usage: 2, failure: 1, integrity: 3 };

/** The CLI exit code for an error code: 1 failure, 2 usage, 3 integrity refusal. */
export function exitCodeFor(code: ErrorCode): number {
  return EXIT_CODES[ERROR_CODES[code].class];
}

/** The one-line hint shown under an error of this code. */
export function hintFor(code: ErrorCode): string {
  return ERROR_CODES[code].hint;
}

/** True for codes in the integrity class (refusals). */
export function isIntegrityCode(code: ErrorCode): boolean {
  return ERROR_CODES[code].class === 'integrity';
}
