/**
 * `rye registry pull <type> <namespace>/<id>`: verify the package's signed
 * index, fetch the version it names (the one asked for, or its latest), verify
 * everything (registry README, "Trust model"), then write the author-signed
 * file into the project at `.ai/<type folder>/<id><ext>`, trust the author key
 * in the project, and pin a pulled tool in a lockfile that records the registry
 * (verified with the session's `prepareToPin`, the executor's, wired by the
 * composition root: the registry does not import the executor to pin).
 */
import { rm } from 'node:fs/promises';
import { isRyeError } from '../../errors/index.js';
import {
  ITEM_EXTENSIONS,
  ITEM_FOLDERS,
  assertNotReserved,
  loadSpaceTrust,
  parseItemType,
  type ItemType,
} from '../../items/index.js';
import { updateLockfileWith, type PrepareToPin } from '../../lockfile/index.js';
import { writeFileAtomic } from '../../platform/index.js';
import { assertVersion, parseRegistryRef } from '../names.js';
import { parseItemVersionDocument } from './documents.js';
import {
  assertMatchesIndex,
  chooseVersion,
  fetchVerifiedIndex,
  indexSummary,
} from './fetch-index.js';
import { itemPath } from './paths.js';
import { conflict, holdsBytes, inspectTarget, type Target } from './project-paths.js';
import { pinnedRegistryKey } from './registry-key.js';
import type { RegistrySession } from './session.js';
import { trustAuthorKey, trustedAuthorJson } from './trust-author.js';
import { verifyAnswer, type VerifiedAnswer } from './verify-answer.js';

export interface PullItemInput {
  readonly itemType: string;
  /** `<namespace>/<item_id>`. */
  readonly ref: string;
  /** A version; omitted: the latest non-yanked one of the registry's signed index. */
  readonly version?: string | undefined;
  /** Replace a different file at the target (and the same id with another extension). */
  readonly force?: boolean | undefined;
}

export type PullItemResult = Record<string, unknown> & { readonly ok: true };

/**
 * @throws RyeError ITEM_TYPE_INVALID, REGISTRY_REF_INVALID, ITEM_ID_RESERVED (before any network call),
 *   the registry's and
 *   the transport's codes, every refusal of fetchVerifiedIndex (REGISTRY_INDEX_*),
 *   REGISTRY_NOT_FOUND (not in the signed index), every refusal of verifyAnswer,
 *   REGISTRY_INDEX_MISMATCH, REGISTRY_PULL_CONFLICT,
 *   INTEGRITY_SYMLINK_ESCAPE, FILE_WRITE_FAILED. A failed lockfile is reported
 *   in the result (`lockfile: null`, `lockfile_error`), never thrown; a
 *   session without `prepareToPin` pins nothing (no `lockfile` field).
 */
export async function pullItem(
  session: RegistrySession,
  input: PullItemInput,
): Promise<PullItemResult> {
  const itemType = parseItemType(input.itemType);
  const { namespace, itemId } = parseRegistryRef(input.ref);
  // It would land at .ai/<type>/rye/…, which never resolves; refuse it outright.
  assertNotReserved(itemId, 'pull');
  const version = input.version ?? null;
  if (version !== null) assertVersion(version);
  const { url } = session.endpoint;

  const key = await pinnedRegistryKey(session);
  const pkg = { kind: 'item', itemType, namespace, itemId } as const;
  const index = await fetchVerifiedIndex(session, key, pkg);
  const entry = chooseVersion(index, version, url);
  const { value } = await session.http.json({
    method: 'GET',
    path: itemPath(itemType, namespace, itemId),
    query: { version: entry.version },
  });
  const doc = parseItemVersionDocument(value, url);
  const verified = verifyAnswer({ ...pkg, version: entry.version }, key, doc);
  const { statement } = verified;
  assertMatchesIndex(entry, statement, url);
  const extension = statement.extension ?? '';
  const bytes = Buffer.from(verified.text, 'utf8');

  // Every check on the project before the first write.
  const base = `.ai/${ITEM_FOLDERS[itemType]}/${itemId}`;
  const target = await inspectTarget(session.spaces.project, base + extension);
  const others = await otherExtensions(session, itemType, base, extension);
  const unchanged = await holdsBytes(target, bytes);
  for (const t of [target, ...others])
    if (t.kind === 'other') throw conflict(t, 'a folder or special file is there');
  if (!input.force) {
    if (target.kind !== 'missing' && !unchanged) throw conflict(target);
    const other = others[0];
    if (other !== undefined)
      throw conflict(other, `the same ${itemType} id exists as ${other.rel}`);
  }

  if (!unchanged) await writeFileAtomic(target.absolute, bytes);
  for (const other of others) await rm(other.absolute, { force: true });
  // The author's key may sign this id and type in the project, nothing more.
  const trusted = await trustAuthorKey(session, verified.author, namespace, key.fingerprint, {
    ids: [itemId],
    itemTypes: [itemType],
  });
  const lock =
    itemType === 'tool' && session.prepareToPin !== undefined
      ? await lockPulledTool(session.prepareToPin, session, itemId, verified)
      : null;
  return {
    ok: true,
    action: 'pull',
    registry: url,
    item_type: itemType,
    namespace,
    item_id: itemId,
    version: statement.version,
    extension,
    path: target.absolute,
    status: unchanged ? 'unchanged' : target.kind === 'missing' ? 'written' : 'replaced',
    removed: others.map((o) => o.absolute),
    // The signed index says, not the answer's unsigned flag.
    yanked: entry.yanked,
    index: indexSummary(index),
    attestation: attestationSummary(verified),
    registry_key: { fingerprint: key.fingerprint, pinned_now: key.pinnedNow },
    trusted_key: trustedAuthorJson(trusted),
    ...(lock ?? {}),
  };
}

/** The statement's fields a human or a tool wants to see. */
export function attestationSummary(verified: VerifiedAnswer): Record<string, unknown> {
  const s = verified.statement;
  return {
    content_hash: s.content_hash,
    author_fingerprint: s.author_fingerprint,
    registry_fingerprint: s.registry_fingerprint,
    attested_at: s.attested_at,
  };
}

async function otherExtensions(
  session: RegistrySession,
  itemType: ItemType,
  base: string,
  extension: string,
): Promise<Target[]> {
  const found: Target[] = [];
  for (const ext of ITEM_EXTENSIONS[itemType]) {
    if (ext === extension) continue;
    const target = await inspectTarget(session.spaces.project, base + ext);
    if (target.kind !== 'missing') found.push(target);
  }
  return found;
}

async function lockPulledTool(
  prepare: PrepareToPin,
  session: RegistrySession,
  itemId: string,
  verified: VerifiedAnswer,
): Promise<Record<string, unknown>> {
  const s = verified.statement;
  try {
    const { trust } = await loadSpaceTrust(session.spaces);
    const { path } = await updateLockfileWith(prepare, session.spaces, itemId, trust, new Date(), {
      url: session.endpoint.url,
      namespace: s.namespace,
      item_id: s.item_id,
      version: s.version,
      attested_at: s.attested_at,
    });
    return { lockfile: path };
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return { lockfile: null, lockfile_error: { code: error.code, message: error.message } };
  }
}
