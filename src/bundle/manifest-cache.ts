import { realpath } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { RyeError, type ErrorCode } from '../errors/index.js';
import {
  TrustedCache,
  sha256Hex,
  verdictReason,
  verifyText,
  type TrustSet,
  type TrustedKey,
  type VerifySubject,
} from '../integrity/index.js';
import type { SpaceName } from '../items/index.js';
import { decodeText, readFileCapped, unreadable } from '../platform/index.js';
import { MAX_MANIFEST_BYTES, parseManifest } from './manifest-parse.js';
import { bundleManifestPath } from './manifest-path.js';
import { manifestScopeProblem } from './manifest-scope.js';
import type { BundleManifest } from './types.js';

/** A bundle manifest whose signature verified under the caller's trust set. */
export interface VerifiedManifest {
  /** The manifest file, absolute (as given, resolved; not through symlinks). */
  readonly path: string;
  /** `bundle.id` from the manifest; always matches the folder it lies in. */
  readonly bundleId: string;
  /** The space it was found in, when the caller said (null otherwise). */
  readonly space: SpaceName | null;
  /** Real path of `<base>` in `<base>/.ai/bundles/<id>/manifest.yaml`: listed paths are relative to it. */
  readonly baseDir: string;
  readonly manifest: BundleManifest;
  /** Fingerprint of the key that signed the manifest. */
  readonly fingerprint: string;
  /** Owner of that key in the trust set. */
  readonly signer: string;
}

/** What a cache hit restores, and the key that must still be trusted for it to count. */
export interface ManifestCacheEntry {
  readonly manifest: BundleManifest;
  readonly fingerprint: string;
  readonly signer: string;
  readonly publicKeyPem: string;
}

/**
 * Verified manifests keyed by (real path, SHA-256 of the raw bytes). A hit skips
 * the signature check and the YAML parse, and counts only while the signing key
 * is still in the caller's trust set with the same public key. Failures are
 * never cached; a changed manifest has another key, so it is verified again.
 * Bounded: the least recently used entry goes.
 */
export class VerifiedManifestCache extends TrustedCache<ManifestCacheEntry> {
  #verifications = 0;

  constructor(maxEntries = 1_000) {
    super(maxEntries);
  }

  /** Signature checks run so far (cache misses), successful or not. */
  get verifications(): number {
    return this.#verifications;
  }

  /** @internal */
  lookup(
    key: string,
    trust: TrustSet,
    subject: VerifySubject | null,
  ): ManifestCacheEntry | undefined {
    return this.find(key, trust, subject);
  }

  /** @internal */
  countVerification(): void {
    this.#verifications += 1;
  }
}

/**
 * Read a bundle manifest once (capped at 16 MiB), verify its `#` signature line
 * as a `.yaml` tool item against `trust`, then parse the same bytes. It must
 * list only its own bundle's folders (`manifestScopeProblem`, as `rye bundle
 * verify` and a pull require) and lie at
 * `<base>/.ai/bundles/<bundle.id>/manifest.yaml`. The signature counts only
 * from a key whose scope covers that bundle id as a `bundle` (the user's own
 * key and other unrestricted keys do): a key trusted for other items never
 * speaks for a bundle's unsigned files. Served from `cache` while the bytes
 * and the signing key's trust (and scope) are unchanged.
 *
 * @throws RyeError with the verdict's code (INTEGRITY_UNSIGNED,
 *   INTEGRITY_HASH_MISMATCH, INTEGRITY_UNTRUSTED_KEY, INTEGRITY_BAD_SIGNATURE,
 *   INTEGRITY_MALFORMED_SIGNATURE, …) naming the manifest; FILE_UNREADABLE,
 *   FILE_TOO_LARGE, FILE_BINARY; BUNDLE_MANIFEST_INVALID for a malformed body, a
 *   path listed outside the bundle's folders, or a manifest lying outside its
 *   bundle's folder. Failures are never cached.
 */
export async function verifiedManifest(
  path: string,
  trust: TrustSet,
  cache: VerifiedManifestCache,
  space: SpaceName | null = null,
): Promise<VerifiedManifest> {
  const abs = resolve(path);
  const real = await realpath(abs).catch((error: unknown) => {
    throw unreadable(abs, error);
  });
  const bytes = await readFileCapped(real, MAX_MANIFEST_BYTES);
  const key = `${real}\0${sha256Hex(bytes)}`;
  // The id the manifest's place says it speaks for, checked against its signer's scope.
  const placeId = bundleIdOfPath(abs);
  const subject: VerifySubject | null =
    placeId === null ? null : { itemId: placeId, itemType: 'bundle' };
  let entry = cache.lookup(key, trust, subject);
  if (entry === undefined) {
    cache.countVerification();
    const text = decodeText(bytes, abs);
    const result = verifyText(text, {
      itemType: 'tool',
      extension: '.yaml',
      trust,
      path: abs,
      subject,
    });
    if (!result.ok) {
      const { verdict, fingerprint, contentHash: expected, actualHash: actual } = result;
      throw new RyeError(
        // A failed verdict always has its code.
        result.code as ErrorCode,
        `Cannot use bundle manifest ${abs}: ${verdictReason(result)}`,
        { path: abs, verdict, fingerprint, expected, actual },
      );
    }
    // Parsed only after the signature verified: the body is authenticated input from here on.
    const manifest = parseManifest(text, abs);
    // Authenticated is not in scope: a manifest of one bundle must never vouch for another's files.
    const outOfScope = manifestScopeProblem(manifest, manifest.bundle.id);
    if (outOfScope !== undefined) {
      throw new RyeError(
        'BUNDLE_MANIFEST_INVALID',
        `Cannot use bundle manifest ${abs}: ${outOfScope}`,
        { path: abs, bundleId: manifest.bundle.id },
      );
    }
    // An ok verdict names its key, which is in `trust`, and that key's owner.
    const fingerprint = result.fingerprint as string;
    entry = {
      manifest,
      fingerprint,
      signer: result.signer as string,
      publicKeyPem: (trust.get(fingerprint) as TrustedKey).publicKeyPem,
    };
    cache.remember(key, entry);
  }
  const bundleId = entry.manifest.bundle.id;
  const base = await baseOf(abs, bundleId, placeId);
  return {
    path: abs,
    bundleId,
    space,
    baseDir: base,
    manifest: entry.manifest,
    fingerprint: entry.fingerprint,
    signer: entry.signer,
  };
}

/**
 * The bundle id of `<base>/.ai/bundles/<id>/manifest.yaml` (the last
 * `.ai/bundles` on the path), or null when the path has another shape.
 */
export function bundleIdOfPath(abs: string): string | null {
  const marker = `${sep}.ai${sep}bundles${sep}`;
  const tail = `${sep}manifest.yaml`;
  const at = abs.lastIndexOf(marker);
  if (at === -1 || !abs.endsWith(tail)) return null;
  const id = abs.slice(at + marker.length, abs.length - tail.length);
  return id === '' ? null : id.split(sep).join('/');
}

/** The real `<base>` of `<base>/.ai/bundles/<id>/manifest.yaml`, or a refusal. */
async function baseOf(abs: string, bundleId: string, placeId: string | null): Promise<string> {
  const suffix = join('.ai', 'bundles', ...bundleId.split('/'), 'manifest.yaml');
  // With its trailing separator (`/` for a manifest at the root): realpath drops it.
  const base = abs.endsWith(`${sep}${suffix}`) ? abs.slice(0, -suffix.length) : null;
  if (
    base === null ||
    placeId !== bundleId ||
    bundleManifestPath(join(base, '.ai'), bundleId) !== abs
  ) {
    // A manifest copied under another bundle's folder would be read against the wrong base.
    throw new RyeError(
      'BUNDLE_MANIFEST_INVALID',
      `Cannot use bundle manifest ${abs}: it declares bundle ${bundleId} but does not lie at <base>/${suffix.split(sep).join('/')}`,
      { path: abs, bundleId },
    );
  }
  return realpath(base).catch((error: unknown) => {
    throw unreadable(base, error);
  });
}
