import { RyeError } from '../../errors/index.js';
import { formatCapability } from '../../capabilities/index.js';
import { registryDbPath } from './layout.js';
import { RegistryDb } from './registry-db.js';

/** Deeper than any depth limit allows; a loop in the index stops here. */
const MAX_HOPS = 64;

/**
 * True when `caller` may reach `threadId`: the operator (`caller` undefined)
 * reaches any thread; a thread only its own descendants, walked up the
 * registry's parent links.
 */
export function reaches(
  projectRoot: string,
  threadId: string,
  caller: string | undefined,
): boolean {
  if (caller === undefined) return true;
  const db = RegistryDb.open(registryDbPath(projectRoot));
  try {
    let at = db.get(threadId)?.parentId ?? null;
    for (let hops = 0; at !== null && hops < MAX_HOPS; hops++) {
      if (at === caller) return true;
      at = db.get(at)?.parentId ?? null;
    }
    return false;
  } finally {
    db.close();
  }
}

/**
 * The thread ids a thread tool call names (`thread_id`, `thread_ids`), none
 * when its parameters name none in those shapes. Pure.
 */
export function threadsNamed(parameters: unknown): string[] {
  if (typeof parameters !== 'object' || parameters === null) return [];
  const { thread_id: one, thread_ids: many } = parameters as Record<string, unknown>;
  const ids = [one, ...(Array.isArray(many) ? many.slice(0, 64) : [])];
  return ids.filter((id): id is string => typeof id === 'string' && id.length <= 200);
}

/**
 * Refuse a thread tool call on `threadId` unless the caller may reach it: the
 * operator (`caller` undefined) reaches any thread (its authority was checked
 * on the tool id); a thread reaches only its own descendants (THREADS.md §11),
 * walked up the registry's parent links.
 *
 * @throws RyeError CAPABILITY_DENIED
 */
export function requireReachable(
  projectRoot: string,
  toolId: string,
  threadId: string,
  caller: string | undefined,
): void {
  if (reaches(projectRoot, threadId, caller)) return;
  throw new RyeError(
    'CAPABILITY_DENIED',
    `Cannot use ${toolId} on thread ${threadId}: a thread reaches only its own descendants`,
    {
      required: formatCapability({ verb: 'execute', type: 'tool', pattern: toolId }),
      thread_id: threadId,
      caller,
    },
  );
}
