/**
 * `rye registry push <type> <item_id> --version X.Y.Z`: publish one signed
 * item, then check the registry's answer exactly like a pull would.
 */
import { RyeError } from '../../errors/index.js';
import { bodyWithoutSignature, trustSetOf, verifyText } from '../../integrity/index.js';
import {
  assertNotReserved,
  extractMetadata,
  parseItemType,
  resolveItem,
} from '../../items/index.js';
import { readTextFile } from '../../platform/index.js';
import { assertVersionAgrees, declaredVersionOf } from '../declared-version.js';
import { assertRegistryId, assertVersion } from '../names.js';
import { requireToken } from './credentials.js';
import { parseItemVersionDocument } from './documents.js';
import { publishNamespace } from './namespace.js';
import { attestationSummary } from './pull-item.js';
import { pinnedRegistryKey } from './registry-key.js';
import type { RegistrySession } from './session.js';
import { verifyAnswer } from './verify-answer.js';
import { multiFileWarning } from './multi-file.js';

export interface PushItemInput {
  readonly itemType: string;
  readonly itemId: string;
  readonly version: string;
  /** Defaults to the logged-in username. */
  readonly namespace?: string | undefined;
  /** Publish although the item declares another version (`--allow-version-mismatch`). */
  readonly allowVersionMismatch?: boolean | undefined;
}

/**
 * Resolve the item (project, then user space), read it, POST it, and verify
 * the answer: attestation and registry signature by the pinned key, naming
 * exactly this item, version and content. The version must be the one the
 * item declares unless `allowVersionMismatch`; a tool whose folder looks like
 * a multi-file package is pushed with a warning that points to push-bundle.
 *
 * @throws RyeError REGISTRY_AUTH_REQUIRED, ITEM_TYPE_INVALID,
 *   REGISTRY_REF_INVALID, ITEM_ID_RESERVED, ITEM_NOT_FOUND, ITEM_AMBIGUOUS,
 *   INTEGRITY_UNSIGNED (nothing to publish), METADATA_PARSE_FAILED,
 *   REGISTRY_VERSION_MISMATCH (all before any network call), the registry's
 *   codes, and every refusal of verifyAnswer.
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
  const label = `${itemType} ${input.itemId} (${item.path})`;
  const unsigned = bodyWithoutSignature(content, itemType, item.extension);
  const declared = declaredVersionOf(
    await extractMetadata(itemType, item.extension, unsigned, item.path),
  );
  const allowMismatch = input.allowVersionMismatch === true;
  assertVersionAgrees(label, declared, input.version, allowMismatch);
  const warnings: string[] = [];
  if (itemType === 'tool') {
    const warning = await multiFileWarning(item.path, input.itemId);
    if (warning !== null) warnings.push(warning);
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
      ...(allowMismatch && declared !== input.version ? { allow_version_mismatch: true } : {}),
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
    declared_version: declared,
    warnings,
    attestation: attestationSummary(verified),
    registry_key: { fingerprint: key.fingerprint, pinned_now: key.pinnedNow },
  };
}
