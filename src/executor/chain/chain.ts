import { RyeError, isRyeError } from '../../errors/index.js';
import { verifyText, type TrustSet, type VerifyResult } from '../../integrity/index.js';
import {
  extractMetadata,
  resolveItem,
  type ResolvedItem,
  type SpaceName,
  type Spaces,
} from '../../items/index.js';
import { bodyWithoutSignature } from '../../integrity/index.js';
import { MAX_CHAIN_LENGTH } from '../../lockfile/index.js';
import { decodeText, readFileCappedSync } from '../../platform/index.js';
import { parseEnvConfig } from '../env/env-config.js';
import { checkIdentity } from './identity.js';
import { parseAnchorConfig, parseVerifyDepsConfig } from './runtime-config.js';
import type { ChainElement } from '../types.js';

/** Most links a chain may have: tool → runtimes → primitive. */

const SPACE_RANK: Readonly<Record<SpaceName, number>> = { project: 0, user: 1, system: 2 };

export interface BuiltChain {
  readonly chain: readonly ChainElement[];
  /** The verification of each element, in chain order. */
  readonly verifications: readonly VerifyResult[];
}

/**
 * Build and verify the executor chain of a tool: follow `executor_id` from the
 * tool to a primitive (null ends it), verifying each element's signature as it
 * is read — metadata is only trusted once its bytes are. Then validate: no
 * cycle, at most 10 links, the root is a primitive, and no element depends on
 * a higher-precedence space than its own (a system runtime resolving to a
 * project file is a shadowing attempt).
 *
 * @throws RyeError ITEM_ID_INVALID, ITEM_NOT_FOUND, ITEM_AMBIGUOUS, every
 *   INTEGRITY_* / FILE_* code of a chain element, EXECUTOR_NOT_A_TOOL,
 *   EXECUTOR_MISSING_LINK, EXECUTOR_CHAIN_CYCLE, EXECUTOR_CHAIN_TOO_LONG,
 *   EXECUTOR_ROOT_NOT_PRIMITIVE, EXECUTOR_SPACE_VIOLATION, EXECUTOR_CONFIG_INVALID,
 *   METADATA_PARSE_FAILED, PARSE_UNSAFE_CONTENT, EXECUTOR_IDENTITY_MISMATCH (signed
 *   metadata naming another place than the id resolved).
 */
export async function buildChain(
  spaces: Spaces,
  toolId: string,
  trust: TrustSet,
): Promise<BuiltChain> {
  const chain: ChainElement[] = [];
  const verifications: VerifyResult[] = [];
  const seen: string[] = [];
  let nextId: string | null = toolId;
  while (nextId !== null) {
    if (seen.includes(nextId)) {
      throw new RyeError(
        'EXECUTOR_CHAIN_CYCLE',
        `Cannot build the chain of ${toolId}: ${[...seen, nextId].join(' → ')} is a cycle`,
        { toolId, chain: [...seen, nextId] },
      );
    }
    if (chain.length === MAX_CHAIN_LENGTH) {
      throw new RyeError(
        'EXECUTOR_CHAIN_TOO_LONG',
        `Cannot build the chain of ${toolId}: more than ${MAX_CHAIN_LENGTH} links (${seen.join(' → ')} → ${nextId} …)`,
        { toolId, chain: seen, max: MAX_CHAIN_LENGTH },
      );
    }
    seen.push(nextId);
    const item = await resolveLink(spaces, nextId, chain.at(-1));
    const previous = chain.at(-1);
    if (previous !== undefined && SPACE_RANK[item.space] < SPACE_RANK[previous.space]) {
      throw new RyeError(
        'EXECUTOR_SPACE_VIOLATION',
        `Cannot build the chain of ${toolId}: ${previous.itemId} (${previous.space} space) depends on ${item.itemId}, which resolves in ${item.space} space — a higher-precedence space`,
        {
          toolId,
          element: previous.itemId,
          dependency: item.itemId,
          space: item.space,
          path: item.path,
        },
      );
    }
    const { element, verification } = await readElement(item, trust);
    chain.push(element);
    verifications.push(verification);
    nextId = element.executorId;
  }
  const root = chain.at(-1);
  if (root !== undefined && root.toolType !== 'primitive') {
    throw new RyeError(
      'EXECUTOR_ROOT_NOT_PRIMITIVE',
      `Cannot build the chain of ${toolId}: it ends at ${root.itemId} (tool_type ${String(root.toolType)}), not at a primitive`,
      { toolId, root: root.itemId, toolType: root.toolType },
    );
  }
  return { chain, verifications };
}

async function resolveLink(
  spaces: Spaces,
  id: string,
  from: ChainElement | undefined,
): Promise<ResolvedItem> {
  try {
    return await resolveItem(spaces, 'tool', id);
  } catch (error) {
    if (from === undefined || !isRyeError(error, 'ITEM_NOT_FOUND')) throw error;
    throw new RyeError(
      'EXECUTOR_MISSING_LINK',
      `Cannot build the chain: ${from.itemId} names executor ${id}, which does not resolve in any space`,
      { element: from.itemId, executorId: id, path: from.path },
      { cause: error },
    );
  }
}

async function readElement(
  item: ResolvedItem,
  trust: TrustSet,
): Promise<{ element: ChainElement; verification: VerifyResult }> {
  // One read: these bytes are verified here and later copied into the snapshot the tool runs from.
  const raw = readFileCappedSync(item.path);
  const text = decodeText(raw, item.path);
  const verification = verifyText(text, {
    itemType: 'tool',
    extension: item.extension,
    trust,
    path: item.path,
    // Each element for its own id: a key scoped for the tool cannot vouch for its runtime.
    subject: { itemId: item.itemId, itemType: 'tool' },
  });
  if (!verification.ok) {
    throw new RyeError(
      verification.code ?? 'INTEGRITY_UNSIGNED',
      `Cannot run chain element ${item.itemId}: ${verification.message}`,
      {
        itemId: item.itemId,
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
  if (
    metadata.kind !== 'tool' ||
    !metadata.isEntryPoint ||
    !Object.hasOwn(metadata.fields, 'executor_id')
  ) {
    throw new RyeError(
      'EXECUTOR_NOT_A_TOOL',
      `Cannot run ${item.itemId}: it declares no executor_id (not a tool entry point)`,
      {
        itemId: item.itemId,
        path: item.path,
      },
    );
  }
  checkIdentity(item, metadata);
  const f = metadata.fields;
  const executorId = f.executor_id;
  if (executorId !== null && typeof executorId !== 'string') {
    throw configError(item, 'executor_id must be an item id or null');
  }
  const element: ChainElement = {
    itemId: item.itemId,
    space: item.space,
    path: item.path,
    extension: item.extension,
    toolType: typeof f.tool_type === 'string' ? f.tool_type : null,
    executorId,
    version: typeof f.version === 'string' ? f.version : null,
    integrity: verification.contentHash ?? '',
    envConfig: parseEnvConfig(f.env_config ?? null, item.path),
    config: objectOrNull(f.config, item, 'config'),
    configSchema: objectOrNull(f.config_schema, item, 'config_schema'),
    anchor: parseAnchorConfig(metadata.extra['anchor'] ?? null, item.path),
    verifyDeps: parseVerifyDepsConfig(metadata.extra['verify_deps'] ?? null, item.path),
    permissions: f.permissions,
    raw,
  };
  return { element, verification };
}

function objectOrNull(
  value: unknown,
  item: ResolvedItem,
  field: string,
): Readonly<Record<string, unknown>> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    throw configError(item, `${field} must be a mapping`);
  return value as Record<string, unknown>;
}

function configError(item: ResolvedItem, why: string): RyeError {
  return new RyeError('EXECUTOR_CONFIG_INVALID', `Cannot run ${item.itemId}: ${why}`, {
    itemId: item.itemId,
    path: item.path,
  });
}
