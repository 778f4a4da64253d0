import { RyeError } from '../../errors/index.js';
import { formatTimestamp } from '../../integrity/index.js';
import {
  latestOf,
  signIndex,
  type PackageIndex,
  type SignedIndexDocument,
} from '../package-index.js';
import type { ServerContext } from './context.js';
import type { PackageKey } from './store/index.js';

/** How long a signed package index stays valid (default 24 hours). */
export const DEFAULT_INDEX_TTL_SECONDS = 86_400;
/** A signed index is re-signed when older than this, at most (1 hour)... */
const MAX_REFRESH_SECONDS = 3_600;
/** ...or than a quarter of its validity, whichever is shorter. */
const REFRESH_FRACTION = 4;
/** Signed indexes kept in memory; the oldest goes first when full. */
const CACHE_ENTRIES = 10_000;

export interface IndexOptions {
  /** Validity of a signed index, in seconds: 1 .. 31 days. */
  readonly ttlSeconds?: number;
}

interface Cached {
  readonly seq: number;
  readonly issuedMs: number;
  readonly body: string;
}

/**
 * Signs package indexes on demand. Each request reads the package's rows (one
 * statement, one snapshot); the signed answer is reused while the package's
 * `seq` is unchanged and it is younger than the refresh interval, so a publish
 * or yank is visible at once and an index never nears its expiry while the
 * registry is up, yet an idle registry signs nothing.
 */
export class IndexSigner {
  readonly ttlSeconds: number;
  readonly #ctx: ServerContext;
  readonly #refreshMs: number;
  readonly #cache = new Map<string, Cached>();

  /** @throws RyeError USAGE_INVALID_ARGUMENT for a ttl outside 1 s .. 31 days */
  constructor(ctx: ServerContext, options: IndexOptions = {}) {
    const ttl = options.ttlSeconds ?? DEFAULT_INDEX_TTL_SECONDS;
    if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > 31 * 86_400) {
      throw new RyeError(
        'USAGE_INVALID_ARGUMENT',
        `Cannot sign package indexes valid for ${ttl} seconds: choose 1 to ${31 * 86_400}`,
        { ttl_seconds: ttl },
      );
    }
    this.#ctx = ctx;
    this.ttlSeconds = ttl;
    this.#refreshMs = Math.min(MAX_REFRESH_SECONDS, ttl / REFRESH_FRACTION) * 1000;
  }

  /** The JSON body of the signed index of a package, or null when nothing is published. */
  async answer(key: PackageKey): Promise<string | null> {
    const state = await this.#ctx.store.packageIndex(key);
    if (state.versions.length === 0) return null;
    const id = `${key.kind}\n${key.itemType ?? ''}\n${key.namespace}\n${key.itemId}`;
    const nowMs = this.#ctx.now().getTime();
    const hit = this.#cache.get(id);
    if (
      hit !== undefined &&
      hit.seq === state.seq &&
      nowMs >= hit.issuedMs &&
      nowMs - hit.issuedMs < this.#refreshMs
    )
      return hit.body;

    const issuedMs = Math.floor(nowMs / 1000) * 1000;
    const index: PackageIndex = {
      rye_index: 1,
      registry_fingerprint: this.#ctx.key.fingerprint,
      kind: key.kind,
      item_type: key.itemType,
      namespace: key.namespace,
      item_id: key.itemId,
      seq: state.seq,
      issued_at: formatTimestamp(new Date(issuedMs)),
      expires_at: formatTimestamp(new Date(issuedMs + this.ttlSeconds * 1000)),
      latest: latestOf(state.versions),
      versions: state.versions.map((v) => ({
        version: v.version,
        content_hash: v.contentHash,
        published_at: v.publishedAt,
        yanked: v.yanked,
      })),
    };
    const document: SignedIndexDocument = signIndex(this.#ctx.key.signer, index);
    const body = JSON.stringify(document);
    this.#cache.delete(id);
    if (this.#cache.size >= CACHE_ENTRIES) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(id, { seq: state.seq, issuedMs, body });
    return body;
  }
}
