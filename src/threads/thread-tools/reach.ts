import { RyeError } from '../../errors/index.js';
import { formatCapability } from '../capabilities/index.js';
import { RegistryDb, registryDbPath } from '../store/index.js';

/** Deeper than any depth limit allows; a loop in the index stops here. */
const MAX_HOPS = 64;

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
  if (caller === undefined) return;
  const db = RegistryDb.open(registryDbPath(projectRoot));
  try {
    let at = db.get(threadId)?.parentId ?? null;
    for (let hops = 0; at !== null && hops < MAX_HOPS; hops++) {
      if (at === caller) return;
      at = db.get(at)?.parentId ?? null;
    }
  } finally {
    db.close();
  }
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
