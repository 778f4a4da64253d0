/**
 * `rye registry push <type> <item_id> --version X.Y.Z`: publish one signed
 * item, then check the registry's answer exactly like a pull would.
 */
import { RyeError } from '../../errors/index.js';
import { trustSetOf, verifyText } from '../../integrity/index.js';
import { assertNotReserved, parseItemType, resolveItem } from '../../items/index.js';
import { readTextFile } from '../../platform/index.js';
import { assertRegistryId, assertVersion } from '../names.js';
import { requireToken } from './credentials.js';
import { parseItemVersionDocument } from './documents.js';
import { publishNamespace } from './namespace.js';
import { attestationSummary } from './pull-item.js';
import { pinnedRegistryKey } from './registry-key.js';
import type { RegistrySession } from './session.js';
import { verifyAnswer } from './verify-answer.js';

export interface PushItemInput {
  readonly itemType: string;
  readonly itemId: string;
  readonly version: string;
  /** Defaults to the logged-in username. */
  readonly namespace?: string | undefined;
}

/**
 * Resolve the item (project, then user space), read it, POST it, and verify
 * the answer: attestation and registry signature by the pinned key, naming
 * exactly this item, version and content.
 *
 * @throws RyeError REGISTRY_AUTH_REQUIRED (before any network call),
 *   ITEM_TYPE_INVALID, REGISTRY_REF_INVALID, ITEM_ID_RESERVED, ITEM_NOT_FOUND, ITEM_AMBIGUOUS,
 *   INTEGRITY_UNSIGNED (nothing to publish), the registry's codes, and every
 *   refusal of verifyAnswer.
 */
export async function pushItem(
  session: RegistrySession,
  input: PushItemInput,
): Promise<Record<string, unknown> & { ok: true }> {
  const { url } = session.endpoint;
  const token = await requireToken(session.spaces, url, session.env, 'push');
  const itemType = parseItemType(input.itemType);
  assertRegistryId(input.itemId);
  assertNotReserved(input.itemId, 'push');
  assertVersion(input.version);
  const item = await resolveItem(session.spaces, itemType, input.itemId, ['project', 'user']);
  const content = await readTextFile(item.path);
  const local = verifyText(content, {
    itemType,
    extension: item.extension,
    trust: trustSetOf([]),
    path: item.path,
  });
  if (local.contentHash === null) {
    throw new RyeError(
      local.code === 'INTEGRITY_UNSIGNED' ? 'INTEGRITY_UNSIGNED' : 'INTEGRITY_MALFORMED_SIGNATURE',
      `Cannot push ${item.path}: ${local.message.replace(/^Cannot verify [^:]*: /, '')}`,
      { path: item.path },
    );
  }
  const namespace = await publishNamespace(session, token, input.namespace);
  const key = await pinnedRegistryKey(session);
  const { status, value } = await session.http.json({
    method: 'POST',
    path: '/v1/items',
    token: token.token,
    json: {
      item_type: itemType,
      namespace,
      item_id: input.itemId,
      version: input.version,
      extension: item.extension,
      content,
    },
  });
  const doc = parseItemVersionDocument(value, url);
  const verified = verifyAnswer(
    { kind: 'item', itemType, namespace, itemId: input.itemId, version: input.version },
    key,
    doc,
  );
  const { statement } = verified;
  if (statement.extension !== item.extension || statement.content_hash !== local.contentHash) {
    throw new RyeError(
      'REGISTRY_ATTESTATION_MISMATCH',
      `Cannot accept the registry's answer to the push of ${item.path}: it attests other content (${statement.content_hash}${statement.extension ?? ''}) than was pushed (${local.contentHash}${item.extension})`,
      { expected: local.contentHash, actual: statement.content_hash },
    );
  }
  return {
    ok: true,
    action: 'push',
    registry: url,
    status: status === 201 ? 'created' : 'unchanged',
    item_type: itemType,
    namespace,
    item_id: input.itemId,
    version: statement.version,
    extension: item.extension,
    path: item.path,
    attestation: attestationSummary(verified),
    registry_key: { fingerprint: key.fingerprint, pinned_now: key.pinnedNow },
  };
}
