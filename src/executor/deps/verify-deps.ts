import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { RyeError, isRyeError, type ErrorCode } from '../../errors/index.js';
import {
  sha256Hex,
  verdictReason,
  verifyTextAsync,
  type TrustSet,
  type VerifyResult,
  type VerifySubject,
} from '../../integrity/index.js';
import { decodeText, monotonicMs, readFileCappedSync } from '../../platform/index.js';
import { collect, io, partition, type Candidate } from './deps-walk.js';
import type { VerifyDepsConfig } from '../types.js';
import type { CacheEntry, VerifiedFileCache } from './verified-file-cache.js';

export { VerifiedFileCache } from './verified-file-cache.js';

/** One verified dependency file. */
export interface VerifiedDependency {
  /** Relative to the real base, `/`-separated. */
  readonly relativePath: string;
  readonly absolutePath: string;
  /** The content hash from the file's signature line. */
  readonly contentHash: string;
  /** SHA-256 of the file's raw bytes (what a lockfile compares cheaply). */
  readonly rawSha256: string;
  /** The bytes read once and checked: what the verified snapshot is written from. */
  readonly raw: Uint8Array;
  /** The listed extension matched, lower-cased (it chose the signature format). */
  readonly extension: string;
  /** Third-party code (under a `thirdPartyDirs` folder), pinned by hash. */
  readonly thirdParty: boolean;
  /**
   * Fingerprint of the key that vouches for the file: its own signature's, or
   * that of the verified bundle manifest listing it; null for third-party code
   * (pinned by hash, by the user).
   */
  readonly signer: string | null;
}

export interface DepsReport {
  /** The walked folder, real path. */
  readonly base: string;
  readonly scope: VerifyDepsConfig['scope'];
  /** Sorted by relativePath. */
  readonly files: readonly VerifiedDependency[];
  /** Files in scope that nothing authenticates (no listed extension, no manifest entry): not run, not copied. */
  readonly leftOut: readonly string[];
  /** Files whose signature was checked (cache misses). */
  readonly verified: number;
  /** Files accepted from the cache without signature work. */
  readonly cacheHits: number;
  readonly durationMs: number;
}

export interface VerifyDepsInput {
  /** The folder to walk, from {@link depsBase}. */
  readonly base: string;
  readonly config: VerifyDepsConfig;
  readonly trust: TrustSet;
  readonly cache: VerifiedFileCache;
  /**
   * The item every file is verified for, against a restricted key's scope:
   * the tool for its dependency scope, the runtime for its library. Absent:
   * only unrestricted keys count.
   */
  readonly subject?: VerifySubject | null;
  /**
   * Files that carry no signature (or cannot: `.jsx`, `.css`…) are accepted when
   * a verified bundle manifest lists them with this raw SHA-256 (seed 002: inline
   * signature OR manifest entry): this returns that manifest's signer
   * (fingerprint), else undefined. A file whose signature is present but fails
   * is never rescued.
   */
  readonly manifestCovers?: (absolutePath: string, rawSha256: string) => string | undefined;
  /**
   * Whether a verified bundle manifest lists this path at all: a file with no
   * listed extension is read (and must then match) only when one does; any
   * other such file is left out of the run.
   */
  readonly manifestLists?: (absolutePath: string) => boolean;
  /**
   * Accept the files of `thirdPartyDirs` by hash (what `rye lock update` pins);
   * without it the first one is refused with EXECUTOR_THIRD_PARTY_UNPINNED.
   */
  readonly acceptThirdParty?: boolean;
}

/**
 * The folder `verify_deps` walks: `tool_file` → null (nothing to walk: the entry
 * point is verified as a chain element); `tool_siblings`, `tool_dir` → the tool's
 * folder; `anchor` → the anchor path. Pure.
 */
export function depsBase(
  config: VerifyDepsConfig,
  toolPath: string,
  anchorPath: string,
): string | null {
  if (config.scope === 'tool_file') return null;
  return config.scope === 'anchor' ? anchorPath : dirname(toolPath);
}

/**
 * Verify every dependency file before anything is spawned. Walks the real path
 * of `base` (recursive unless the scope is `tool_siblings` or `recursive` is
 * false), skips entries named in `excludeDirs`, and verifies as a tool item each
 * file whose extension (case-insensitive) is listed. Symlinks must stay inside
 * the base; file links are followed, folder links are not descended. File I/O is
 * synchronous on purpose (small trees; an async call per file costs more than
 * the read). `config.enabled` is the caller's decision and is not consulted.
 *
 * @throws RyeError INTEGRITY_SYMLINK_ESCAPE for the first symlink (to a file or
 *   a folder) leading outside the base, before any file is verified; then the
 *   verdict code of the first failing file in path order (INTEGRITY_UNSIGNED,
 *   INTEGRITY_HASH_MISMATCH, INTEGRITY_UNTRUSTED_KEY, …, FILE_BINARY,
 *   FILE_TOO_LARGE, FILE_UNREADABLE), naming it; FILE_UNREADABLE for an
 *   unreadable base or folder.
 */
export async function verifyDependencies(input: VerifyDepsInput): Promise<DepsReport> {
  const started = monotonicMs();
  const { config, trust, cache } = input;
  const base = io(input.base, () => realpathSync.native(input.base));
  const recursive = config.recursive && config.scope !== 'tool_siblings';
  // Read and hash every file, then run the signature checks of the cache misses
  // together: the Ed25519 work spreads over the thread pool (every core).
  const { taken, leftOut } = partition(collect(base, recursive, config), input.manifestLists);
  const subject = input.subject ?? null;
  const checks = taken.map((c) => prepare(c, base, trust, cache, subject));
  const verdicts = await Promise.all(
    checks.map((check) =>
      check.cached !== undefined || check.candidate.kind !== 'signed'
        ? undefined
        : verifyTextAsync(check.text, {
            itemType: 'tool',
            extension: check.candidate.ext,
            trust,
            path: check.candidate.abs,
            subject,
          }),
    ),
  );
  const files: VerifiedDependency[] = [];
  let verified = 0;
  checks.forEach((check, i) => {
    const verdict = verdicts[i];
    if (check.candidate.kind === 'third-party') {
      files.push(check.file(acceptThirdParty(check, base, checks, input), null));
      return;
    }
    if (check.candidate.kind === 'other') {
      files.push(check.file(check.rawSha256, coveredOther(check, base, input)));
      return;
    }
    if (verdict === undefined) {
      files.push(check.file(check.cached?.contentHash ?? '', check.cached?.fingerprint ?? null));
      return;
    }
    const settled = settle(check, verdict, base, input);
    files.push(check.file(settled.contentHash, settled.signer));
    verified += 1;
  });
  return {
    base,
    scope: config.scope,
    files,
    leftOut,
    verified,
    cacheHits: files.length - verified,
    durationMs: monotonicMs() - started,
  };
}

/** One dependency file hashed without any signature work (the lockfile fast path). */
export interface HashedDependency {
  readonly relativePath: string;
  readonly absolutePath: string;
  readonly rawSha256: string;
  readonly raw: Uint8Array;
  readonly extension: string;
  readonly thirdParty: boolean;
}

/**
 * Walk the scope exactly as {@link verifyDependencies} does (same exclusions,
 * same symlink refusals) but only hash each file's raw bytes: no decoding, no
 * signature check. A lockfile whose own signature is trusted compares these
 * hashes to the ones it pins, so a warm run costs a walk and a SHA-256 per file.
 *
 * @throws RyeError INTEGRITY_SYMLINK_ESCAPE, FILE_UNREADABLE, FILE_TOO_LARGE
 */
export function hashDependencies(input: {
  base: string;
  config: VerifyDepsConfig;
  manifestLists?: (absolutePath: string) => boolean;
}): {
  base: string;
  files: HashedDependency[];
  leftOut: string[];
} {
  const base = io(input.base, () => realpathSync.native(input.base));
  const recursive = input.config.recursive && input.config.scope !== 'tool_siblings';
  const { taken, leftOut } = partition(collect(base, recursive, input.config), input.manifestLists);
  const files = taken.map((c) => {
    const raw = io(c.real, () => readFileCappedSync(c.real));
    return {
      relativePath: c.rel,
      absolutePath: c.abs,
      rawSha256: sha256Hex(raw),
      raw,
      extension: c.ext,
      thirdParty: c.kind === 'third-party',
    };
  });
  return { base, files, leftOut };
}

/** A listed file without a signature format must match its manifest entry: that manifest's signer. */
function coveredOther(check: PreparedCheck, base: string, input: VerifyDepsInput): string {
  const c = check.candidate;
  const signer = input.manifestCovers?.(c.abs, check.rawSha256);
  if (signer !== undefined) return signer;
  throw dependencyError(
    c,
    base,
    'INTEGRITY_HASH_MISMATCH',
    'its content differs from the bundle manifest that lists it',
    {
      actual: check.rawSha256,
    },
  );
}

interface PreparedCheck {
  readonly candidate: Candidate;
  readonly key: string;
  /** The cached verdict on a hit. */
  readonly cached: CacheEntry | undefined;
  /** The decoded text on a miss ('' on a hit: nothing decoded twice). */
  readonly text: string;
  readonly rawSha256: string;
  readonly file: (contentHash: string, signer: string | null) => VerifiedDependency;
}

/** An error about one dependency names it (relative and absolute) and keeps the verdict's code. */
function dependencyError(
  c: Candidate,
  base: string,
  code: ErrorCode,
  why: string,
  details: object,
): RyeError {
  return new RyeError(code, `Cannot verify dependency ${c.rel} in ${base}: ${why}`, {
    ...details,
    path: c.abs,
    relativePath: c.rel,
    base,
  });
}

/** Read and hash one file once; look it up in the cache. */
function prepare(
  c: Candidate,
  base: string,
  trust: TrustSet,
  cache: VerifiedFileCache,
  subject: VerifySubject | null,
): PreparedCheck {
  // Platform errors (FILE_*) keep their code; their message is re-framed around the dependency.
  const guard = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      if (!isRyeError(error)) throw error;
      const why = error.message.replace(/^Cannot read .*?: /, '');
      throw dependencyError(c, base, error.code, why, error.details);
    }
  };
  const bytes = guard(() => readFileCappedSync(c.real));
  const rawSha256 = sha256Hex(bytes);
  const key = `${c.real}\0${c.ext}\0${rawSha256}`;
  const file = (contentHash: string, signer: string | null): VerifiedDependency => ({
    relativePath: c.rel,
    absolutePath: c.abs,
    contentHash,
    rawSha256,
    raw: bytes,
    extension: c.ext,
    thirdParty: c.kind === 'third-party',
    signer,
  });
  const signed = c.kind === 'signed';
  const cached = signed ? cache.entry(key, trust, subject) : undefined;
  const text = cached === undefined && signed ? guard(() => decodeText(bytes, c.abs)) : '';
  return { candidate: c, key, cached, text, rawSha256, file };
}

/** The content hash and signer of a verified file (remembered in the cache), or the refusal naming it. */
function settle(
  check: PreparedCheck,
  result: VerifyResult,
  base: string,
  input: VerifyDepsInput,
): { contentHash: string; signer: string } {
  const { trust, cache } = input;
  const c = check.candidate;
  const unsignable =
    result.code === 'INTEGRITY_UNSIGNED' || result.code === 'ITEM_UNSUPPORTED_EXTENSION';
  const manifestSigner = unsignable ? input.manifestCovers?.(c.abs, check.rawSha256) : undefined;
  if (!result.ok && manifestSigner !== undefined) {
    return { contentHash: check.rawSha256, signer: manifestSigner };
  }
  if (!result.ok || result.contentHash === null || result.fingerprint === null) {
    const why = verdictReason(result);
    const { verdict, contentHash: expected, actualHash: actual, fingerprint } = result;
    throw dependencyError(c, base, result.code ?? 'INTERNAL_ERROR', why, {
      verdict,
      expected,
      actual,
      fingerprint,
    });
  }
  cache.remember(check.key, {
    contentHash: result.contentHash,
    fingerprint: result.fingerprint,
    publicKeyPem: trust.get(result.fingerprint)?.publicKeyPem ?? '',
  });
  return { contentHash: result.contentHash, signer: result.fingerprint };
}

/** The raw hash a third-party file is pinned by, or the refusal naming it. */
function acceptThirdParty(
  check: PreparedCheck,
  base: string,
  checks: readonly PreparedCheck[],
  input: VerifyDepsInput,
): string {
  if (input.acceptThirdParty === true) return check.rawSha256;
  const c = check.candidate;
  const count = checks.filter((k) => k.candidate.kind === 'third-party').length;
  const more = count > 1 ? ` (one of ${count} such files)` : '';
  throw dependencyError(
    c,
    base,
    'EXECUTOR_THIRD_PARTY_UNPINNED',
    `it is third-party code that no signature covers${more}, and no lockfile of yours pins it`,
    { thirdPartyFiles: count },
  );
}
