/**
 * The inline signature of one bundle file, checked over the exact bytes that
 * were hashed for the manifest: by `rye bundle verify` for every entry that
 * claims one, and by `rye bundle create` before it vouches for a file.
 */
import { RyeError, isRyeError, type ErrorCode } from '../errors/index.js';
import {
  parsePublicKey,
  publicPemOf,
  verifyTextAsync,
  withPendingKeys,
  type Signer,
  type TrustSet,
} from '../integrity/index.js';
import { ITEM_FOLDERS, loadSpaceTrust, type ItemType, type Spaces } from '../items/index.js';
import { decodeText, mapLimit } from '../platform/index.js';
import { itemTypeOfPath, READ_CONCURRENCY } from './hash-files.js';

/** Why an inline signature fails: the verdict's code and message. */
export interface InlineFailure {
  readonly code: ErrorCode;
  readonly message: string;
}

/**
 * Why the inline signature of `rel` (a project-relative bundle path) does not
 * verify against `trust`, or undefined when it does: `bytes` are the bytes
 * hashed (both callers read an inline-signed file whole). The signing key
 * must be trusted for the item's id and type (restricted keys). Never throws
 * for bad content.
 */
export async function inlineSignatureFailure(
  rel: string,
  bytes: Buffer,
  trust: TrustSet,
): Promise<InlineFailure | undefined> {
  const itemType = itemTypeOfPath(rel);
  if (itemType === undefined) {
    return {
      code: 'INTEGRITY_UNSIGNED',
      message: `Cannot verify ${rel}: it is not an item file, so it cannot carry an inline signature`,
    };
  }
  let text: string;
  try {
    text = decodeText(bytes, rel);
  } catch (error) {
    // Defensive: decodeText throws only RyeErrors (FILE_BINARY).
    /* v8 ignore if */
    if (!isRyeError(error)) throw error;
    return { code: error.code, message: error.message };
  }
  const result = await verifyTextAsync(text, {
    itemType,
    extension: rel.slice(rel.lastIndexOf('.')),
    trust,
    path: rel,
    subject: { itemId: itemIdOfPath(rel, itemType), itemType },
  });
  // A failed verdict always has its code.
  return result.ok ? undefined : { code: result.code as ErrorCode, message: result.message };
}

/** The id of `.ai/<type folder>/<id><ext>` (a bundle path that itemTypeOfPath typed: it has an extension). */
function itemIdOfPath(rel: string, itemType: ItemType): string {
  const inside = rel.slice(`.ai/${ITEM_FOLDERS[itemType]}/`.length);
  return inside.slice(0, inside.lastIndexOf('.'));
}

/** A file a manifest would list whose inline signature does not verify. */
export interface InlineRefusal extends InlineFailure {
  readonly path: string;
}

/**
 * Check the inline signature of every file that carries one, on the bytes
 * that were hashed (`signedBytes`), and refuse the bundle on any failure: a
 * manifest must never vouch for an item whose own signature no longer holds.
 *
 * @throws RyeError the first failing file's code (INTEGRITY_HASH_MISMATCH,
 *   INTEGRITY_UNTRUSTED_KEY, TRUST_PROJECT_UNAPPROVED, …), naming it, with
 *   `details.failures` listing every failing file.
 */
export async function assertInlineSignatures(
  bundleId: string,
  files: readonly {
    readonly path: string;
    readonly inlineSigned: boolean;
    readonly signedBytes?: Buffer;
  }[],
  trust: TrustSet,
): Promise<void> {
  const signed = files.filter((f) => f.inlineSigned);
  const checked = await mapLimit(signed, READ_CONCURRENCY, async (file) => {
    // hashFiles keeps the bytes of every inline-signed file (keepSignedBytes).
    const failure = await inlineSignatureFailure(file.path, file.signedBytes as Buffer, trust);
    return failure === undefined ? undefined : { path: file.path, ...failure };
  });
  const failures = checked.filter((f): f is InlineRefusal => f !== undefined);
  const [first] = failures;
  if (first === undefined) return;
  const more = failures.length > 1 ? ` (and ${failures.length - 1} more)` : '';
  throw new RyeError(
    first.code,
    `Cannot create bundle ${bundleId}: the inline signature of ${first.path} does not verify${more}: ${first.message}; review it, re-sign it with \`rye sign\`, then create the bundle again`,
    { bundleId, path: first.path, failures },
  );
}

/**
 * The keys `rye bundle create` checks inline signatures with: the spaces'
 * trust, plus the creator's own key when the stores lack it (what the creator
 * signed, the creator may vouch for). A key already in a store keeps that
 * store's restrictions.
 *
 * @throws RyeError TRUST_APPROVALS_INVALID, FILE_UNREADABLE
 */
export async function creatorTrust(spaces: Spaces, signer: Signer): Promise<TrustSet> {
  const loaded = await loadSpaceTrust(spaces);
  if (loaded.trust.has(signer.fingerprint)) return loaded.trust;
  const own = parsePublicKey(publicPemOf(signer.privateKey));
  const trust = new Map(loaded.trust);
  trust.set(own.fingerprint, { ...own, owner: 'you', attestation: '', source: null });
  return withPendingKeys(
    trust,
    loaded.pending.map((k) => ({
      fingerprint: k.fingerprint,
      owner: k.owner,
      project: loaded.project.project,
    })),
  );
}
