import { RyeError, isRyeError } from '../../errors/index.js';
import {
  bodyWithoutSignature,
  loadTrustStore,
  verifyText,
  type TrustSet,
} from '../../integrity/index.js';
import {
  extractMetadata,
  resolveItem,
  trustStores,
  type ResolvedItem,
  type Spaces,
} from '../../items/index.js';
import { decodeText, readFileCapped } from '../../platform/index.js';
import {
  MAX_DESCRIPTOR_BYTES,
  PROVIDER_ID_PREFIX,
  parseProviderDescriptor,
  type ProviderDescriptor,
} from './provider-config.js';

/** A provider id: the last segment of `rye/agent/providers/<id>`. */
const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Provider descriptors resolve from these spaces only, in this order (THREADS.md §7). */
export const PROVIDER_SPACES = ['user', 'system'] as const;

/** A verified descriptor and where it came from. */
export interface LoadedProvider {
  readonly descriptor: ProviderDescriptor;
  readonly space: 'user' | 'system';
  readonly path: string;
  /** The content hash from its verified signature. */
  readonly content_hash: string;
}

export interface ReadProviderOptions {
  /** Trust to verify against; default: the user and system trust stores (never the project's). */
  readonly trust?: TrustSet;
}

/**
 * Resolve `rye/agent/providers/<id>` from user space, then system space; a
 * project-space file is never looked at, so a pulled or cloned project can
 * never point a key at another host. The one file found is read once
 * (capped), verified like any item, then parsed strictly from the same bytes.
 *
 * @throws RyeError PROVIDER_NOT_FOUND, PROVIDER_CONFIG_INVALID, ITEM_AMBIGUOUS,
 *   FILE_UNREADABLE, FILE_TOO_LARGE, FILE_BINARY, the verification codes
 *   (INTEGRITY_UNSIGNED, INTEGRITY_HASH_MISMATCH, INTEGRITY_UNTRUSTED_KEY, …),
 *   METADATA_PARSE_FAILED, PARSE_UNSAFE_CONTENT
 */
export async function readProviderDescriptor(
  spaces: Spaces,
  id: string,
  options: ReadProviderOptions = {},
): Promise<LoadedProvider> {
  const item = await resolveDescriptor(spaces, id);
  if (item.extension !== '.yaml' && item.extension !== '.yml') {
    throw new RyeError(
      'PROVIDER_CONFIG_INVALID',
      `Cannot use provider descriptor ${id} (${item.path}): descriptors are YAML files`,
      { provider: id, path: item.path, issues: [] },
    );
  }
  const text = decodeText(await readFileCapped(item.path, MAX_DESCRIPTOR_BYTES), item.path);
  const trust = options.trust ?? (await descriptorTrust(spaces));
  const verification = verifyText(text, {
    itemType: 'tool',
    extension: item.extension,
    trust,
    path: item.path,
    subject: { itemId: item.itemId, itemType: 'tool' },
  });
  if (!verification.ok) {
    throw new RyeError(
      verification.code ?? 'INTEGRITY_UNSIGNED',
      `Cannot use provider descriptor ${id}: ${verification.message}`,
      {
        provider: id,
        space: item.space,
        path: item.path,
        verdict: verification.verdict,
        expected: verification.contentHash,
        actual: verification.actualHash,
      },
    );
  }
  const metadata = await extractMetadata(
    'tool',
    item.extension,
    bodyWithoutSignature(text, 'tool', item.extension),
    item.path,
  );
  // The tool metadata reader splits known tool keys from the rest; a descriptor is one mapping.
  const doc = metadata.kind === 'tool' ? { ...metadata.fields, ...metadata.extra } : undefined;
  return {
    descriptor: parseProviderDescriptor(id, doc, item.path),
    space: item.space as 'user' | 'system',
    path: item.path,
    content_hash: verification.contentHash ?? '',
  };
}

async function resolveDescriptor(spaces: Spaces, id: string): Promise<ResolvedItem> {
  if (!PROVIDER_ID.test(id)) {
    throw new RyeError(
      'PROVIDER_NOT_FOUND',
      `Cannot resolve provider "${id.slice(0, 80)}": provider ids are [a-z0-9][a-z0-9_-]*`,
      { provider: id.slice(0, 80) },
    );
  }
  try {
    return await resolveItem(spaces, 'tool', PROVIDER_ID_PREFIX + id, PROVIDER_SPACES);
  } catch (error) {
    if (!isRyeError(error, 'ITEM_NOT_FOUND') && !isRyeError(error, 'ITEM_ID_RESERVED')) throw error;
    throw new RyeError(
      'PROVIDER_NOT_FOUND',
      `Cannot resolve provider "${id}": no ${PROVIDER_ID_PREFIX}${id} in user or system space (project space is never used for providers)`,
      { provider: id, spaces: [...PROVIDER_SPACES] },
      { cause: error },
    );
  }
}

/** The user and system trust stores: a project's own trusted keys never vouch for a provider. */
async function descriptorTrust(spaces: Spaces): Promise<TrustSet> {
  const stores = trustStores(spaces).filter((s) => s.space !== 'project');
  return (await loadTrustStore(stores)).trust;
}
