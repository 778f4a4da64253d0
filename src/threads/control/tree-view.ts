import { RyeError } from '../../errors/index.js';
import type { TrustSet } from '../../integrity/index.js';
import { formatUsd } from '../budget/index.js';
import {
  RegistryDb,
  checkThreadDir,
  markOrphansInterrupted,
  readThreadRecord,
  registryDbPath,
  threadPaths,
  type EdgeKind,
  type ThreadRow,
  type ThreadStatus,
} from '../store/index.js';

/** One thread of a tree as `rye thread tree` and `rye thread cost` show it. */
export interface TreeViewNode {
  readonly thread_id: string;
  readonly directive_id: string;
  readonly status: ThreadStatus;
  readonly depth: number;
  /** How its parent started it (`spawn`, `hook`, `continuation`); null for the thread asked about. */
  readonly edge: EdgeKind | null;
  /** What its directive declared and its parent did not hold (from its verified record). */
  readonly caps_dropped: readonly string[];
  readonly cost: {
    readonly turns: number;
    readonly tokens_in: number;
    readonly tokens_out: number;
    /** Its own provider spend. */
    readonly spend_usd: string;
    /** Its own spend plus every descendant's. */
    readonly subtree_spend_usd: string;
  };
  readonly children: readonly TreeViewNode[];
}

/** A subtree can be large; a view stops at this many threads rather than run away. */
export const MAX_TREE_VIEW = 10_000;

/**
 * The subtree under `threadId` (THREADS.md §11, the seed's thread
 * hierarchy): the registry's rows and edges, each thread's depth and
 * `caps_dropped` from its signed record (verified against `trust`), its own
 * spend and its subtree's. Running threads whose owner died are marked
 * `interrupted` first, as `list` does.
 *
 * @throws RyeError THREAD_ID_INVALID, THREAD_NOT_FOUND, THREAD_RECORD_INVALID
 */
export async function threadTree(
  projectRoot: string,
  threadId: string,
  trust: TrustSet,
): Promise<TreeViewNode> {
  const paths = threadPaths(projectRoot, threadId);
  checkThreadDir(projectRoot, paths);
  const db = RegistryDb.open(registryDbPath(projectRoot));
  try {
    markOrphansInterrupted(projectRoot, db);
    const root = db.get(paths.threadId);
    if (root === undefined)
      throw new RyeError(
        'THREAD_NOT_FOUND',
        `Cannot show the tree of thread ${paths.threadId}: it is not in the registry`,
        { thread: paths.threadId },
      );
    let seen = 0;
    // Depth first; each call answers the node and its subtree's spend in nanos.
    const build = async (
      row: ThreadRow,
      edge: EdgeKind | null,
    ): Promise<{ node: TreeViewNode; nanos: number }> => {
      if (++seen > MAX_TREE_VIEW)
        throw new RyeError(
          'THREAD_RECORD_INVALID',
          `Cannot show the tree of thread ${paths.threadId}: it has more than ${MAX_TREE_VIEW} threads`,
          { thread: paths.threadId },
        );
      const record = await readThreadRecord(threadPaths(projectRoot, row.threadId), trust);
      const children: TreeViewNode[] = [];
      let nanos = row.spendNanos;
      for (const e of db.edgesFrom(row.threadId)) {
        const child = db.get(e.childId);
        if (child === undefined) continue;
        const built = await build(child, e.kind);
        children.push(built.node);
        nanos += built.nanos;
      }
      const node: TreeViewNode = {
        thread_id: row.threadId,
        directive_id: row.directiveId,
        status: row.status,
        depth: record.depth,
        edge,
        caps_dropped: record.caps_dropped,
        cost: {
          turns: row.turns,
          tokens_in: row.tokensIn,
          tokens_out: row.tokensOut,
          spend_usd: formatUsd(row.spendNanos),
          subtree_spend_usd: formatUsd(nanos),
        },
        children,
      };
      return { node, nanos };
    };
    return (await build(root, null)).node;
  } finally {
    db.close();
  }
}
