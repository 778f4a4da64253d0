import { lstat, realpath } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { RyeError } from '../errors/index.js';
import {
  DEFAULT_SIGNATURE_FORMATS,
  hexDigestsEqual,
  sha256Hex,
  signatureFormatFor,
  verdictReason,
  verifyText,
  type SignatureFormatTable,
  type TrustSet,
} from '../integrity/index.js';
import { SPACE_NAMES, aiDir, type Spaces } from '../items/index.js';
import { decodeText, readFileCapped, relativeInside, unreadable } from '../platform/index.js';
import { findBundlesFor, type BundleLookup } from './bundle-of.js';
import { VerifiedManifestCache } from './manifest-cache.js';

/** Largest dependency read (64 MiB): app assets (images, WASM) outgrow the 8 MiB item cap. */
export const MAX_DEPENDENCY_BYTES = 64 * 1024 * 1024;

/** How a dependency was authenticated; `path` is its real path, `sha256` that of its raw bytes. */
export type VerifiedDependencyResult =
  | {
      readonly via: 'inline';
      readonly path: string;
      readonly sha256: string;
      /** The content hash from its signature line. */
      readonly contentHash: string;
      readonly fingerprint: string;
      readonly signer: string;
    }
  | {
      readonly via: 'manifest';
      readonly path: string;
      readonly sha256: string;
      readonly bundleId: string;
      readonly manifestPath: string;
      /** The manifest's signing key. */
      readonly fingerprint: string;
      readonly signer: string;
    };

export interface VerifyDependencyOptions {
  readonly spaces: Spaces;
  readonly trust: TrustSet;
  /** Reuse across calls so each manifest is verified once per content. */
  readonly cache?: VerifiedManifestCache;
  readonly maxBytes?: number;
  readonly formats?: SignatureFormatTable;
  /**
   * The tool the file is loaded for, checked against a restricted signer's
   * scope; absent: the id its place under `.ai/tools` gives it.
   */
  readonly toolId?: string;
}

/**
 * Authenticate one file before it is loaded, spawned or read (seed 002,
 * "verify_dependency"), whatever its language. The file is read once.
 *
 * - Under a space's `.ai/tools` (real paths): a valid inline signature (tool
 *   item, its extension) suffices. With no signature line, or an extension or
 *   content that cannot carry one (`.jsx`, `.css`, binary), a verified bundle
 *   manifest must list it with the SHA-256 of its raw bytes. A signature that
 *   is present but fails is final: no manifest rescues tampered code.
 * - Elsewhere in a space: a verified manifest must list it, or declare an
 *   `includes` folder holding it; then its listed hash must match.
 *
 * @throws RyeError INTEGRITY_SYMLINK_ESCAPE (the path is a symlink);
 *   FILE_UNREADABLE (missing, not a regular file), FILE_TOO_LARGE;
 *   the inline verdict's code (INTEGRITY_HASH_MISMATCH, INTEGRITY_UNTRUSTED_KEY,
 *   INTEGRITY_BAD_SIGNATURE, INTEGRITY_MALFORMED_SIGNATURE, …);
 *   INTEGRITY_HASH_MISMATCH (listed with another hash, both in `details`);
 *   BUNDLE_FILE_UNAUTHENTICATED (outside every allowed root, or not listed;
 *   `details.refusedManifests` names manifests that failed verification).
 */
export async function verifyDependency(
  path: string,
  options: VerifyDependencyOptions,
): Promise<VerifiedDependencyResult> {
  const abs = resolve(path);
  const fail = (error: unknown): never => {
    throw unreadable(abs, error);
  };
  const info = await lstat(abs).catch(fail);
  if (info.isSymbolicLink()) {
    // Even a link that stays inside a root: what is verified must be what the loader opens.
    throw refusal('INTEGRITY_SYMLINK_ESCAPE', abs, 'symlinked dependency not allowed');
  }
  if (!info.isFile()) fail(new Error('not a regular file'));
  const real = await realpath(abs).catch(fail);
  const bytes = await readFileCapped(real, options.maxBytes ?? MAX_DEPENDENCY_BYTES);
  const sha256 = sha256Hex(bytes);
  const cache = options.cache ?? new VerifiedManifestCache();
  const found = (): Promise<BundleLookup> =>
    findBundlesFor(options.spaces, real, { trust: options.trust, cache });

  const toolsRoot = await underToolsRoot(options.spaces, real);
  if (toolsRoot !== undefined) {
    const toolId = options.toolId ?? idUnder(toolsRoot, real);
    const inline = inlineOutcome(bytes, real, sha256, toolId, options);
    if (inline !== undefined) return inline;
    const unlisted = 'neither inline-signed nor listed in a verified bundle manifest';
    return byManifest(await found(), real, sha256, unlisted);
  }
  const lookup = await found();
  const first = lookup.covering[0]?.verified.bundleId;
  if (first === undefined) {
    const why = "outside allowed roots (the spaces' .ai/tools folders and verified bundles)";
    throw unauthenticated(lookup, real, why);
  }
  return byManifest(lookup, real, sha256, `not listed in bundle ${first}'s manifest`);
}

/** Accept the first listing whose hash matches; else a mismatch (evidence) or `unlisted`. */
function byManifest(
  found: BundleLookup,
  real: string,
  sha256: string,
  unlisted: string,
): VerifiedDependencyResult {
  const listing = found.covering.filter((c) => c.entry !== undefined);
  for (const c of listing) {
    if (c.entry !== undefined && hexDigestsEqual(c.entry.sha256, sha256)) {
      const { bundleId, path: manifestPath, fingerprint, signer } = c.verified;
      return { via: 'manifest', path: real, sha256, bundleId, manifestPath, fingerprint, signer };
    }
  }
  const changed = listing[0];
  if (changed?.entry !== undefined) {
    throw refusal(
      'INTEGRITY_HASH_MISMATCH',
      real,
      `its SHA-256 ${sha256} does not match ${changed.entry.sha256} listed in bundle ${changed.verified.bundleId}'s manifest`,
      {
        expected: changed.entry.sha256,
        actual: sha256,
        algorithm: 'sha256',
        bundleId: changed.verified.bundleId,
        manifestPath: changed.verified.path,
      },
    );
  }
  throw unauthenticated(found, real, unlisted);
}

/**
 * The inline result, a refusal when a signature is there and fails (any
 * INTEGRITY_* verdict but INTEGRITY_UNSIGNED), or undefined when the file
 * cannot or does not carry one: no format for its extension, binary bytes, a
 * container that does not parse (JSON), or no signature line.
 */
function inlineOutcome(
  bytes: Buffer,
  real: string,
  sha256: string,
  toolId: string,
  options: VerifyDependencyOptions,
): VerifiedDependencyResult | undefined {
  const extension = extname(real).toLowerCase();
  const formats = options.formats ?? DEFAULT_SIGNATURE_FORMATS;
  if (signatureFormatFor('tool', extension, formats) === undefined) return undefined;
  let text: string;
  try {
    text = decodeText(bytes, real);
  } catch {
    return undefined; // FILE_BINARY, the only error decodeText throws
  }
  const { trust } = options;
  const subject = { itemId: toolId, itemType: 'tool' as const };
  const r = verifyText(text, { itemType: 'tool', extension, trust, path: real, formats, subject });
  if (r.ok && r.contentHash !== null && r.fingerprint !== null) {
    const { contentHash, fingerprint } = r;
    // An ok verdict names the owner of its key.
    const signer = r.signer as string;
    return { via: 'inline', path: real, sha256, contentHash, fingerprint, signer };
  }
  if (r.code === null || !r.code.startsWith('INTEGRITY_') || r.code === 'INTEGRITY_UNSIGNED')
    return undefined;
  const { verdict, fingerprint, contentHash: expected, actualHash: actual } = r;
  throw refusal(r.code, real, verdictReason(r), { verdict, fingerprint, expected, actual });
}

/** The real `.ai/tools` folder of the first space holding `real` strictly inside, else undefined. */
async function underToolsRoot(spaces: Spaces, real: string): Promise<string | undefined> {
  for (const space of SPACE_NAMES) {
    const root = await realpath(join(aiDir(spaces, space), 'tools')).catch(() => undefined);
    if (root !== undefined && relativeInside(root, real)) return root; // strictly inside
  }
  return undefined;
}

/** The id-shaped path of a file under a tools root: relative, `/`-separated, without extension. */
function idUnder(root: string, real: string): string {
  // underToolsRoot found `real` strictly inside `root`.
  const rel = relativeInside(root, real) as string;
  const dot = rel.lastIndexOf('.');
  return dot > rel.lastIndexOf('/') ? rel.slice(0, dot) : rel;
}

function unauthenticated(found: BundleLookup, real: string, why: string): RyeError {
  const refusedManifests = found.refused.map(({ bundleId, path, code }) => ({
    bundleId,
    path,
    code,
  }));
  const note = refusedManifests.map(
    (r) => `; bundle ${r.bundleId}'s manifest was refused (${r.code})`,
  );
  return refusal('BUNDLE_FILE_UNAUTHENTICATED', real, `${why}${note.join('')}`, {
    refusedManifests,
  });
}

function refusal(
  code: RyeError['code'],
  path: string,
  why: string,
  details: Record<string, unknown> = {},
): RyeError {
  return new RyeError(code, `Cannot load dependency ${path}: ${why}`, { ...details, path });
}
