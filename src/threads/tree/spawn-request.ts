import type { ResolvedLimits } from '../directive/index.js';
import type { ThreadResult } from '../loop/thread-result.js';
import type { ThreadRun } from '../loop/thread-run.js';

/** What a parent asks for; everything else comes from its trusted record. */
export interface SpawnRequest {
  readonly directiveId: string;
  readonly inputs: Readonly<Record<string, unknown>>;
  /** `hook` for a hook's lineage-linked child; both count as spawns (THREADS.md §12). */
  readonly edge: 'spawn' | 'hook';
  /** `wait` resolves once the child ended, with its result. */
  readonly mode: 'spawn' | 'wait';
}

export interface SpawnedChild {
  readonly threadId: string;
  /** What the child declared but does not get under its parent. */
  readonly caps_dropped: readonly string[];
  readonly limits: ResolvedLimits;
  /** Settles with the child's result when it ends; never rejects. */
  readonly done: Promise<ThreadResult>;
  /** Its result, in `wait` mode. */
  readonly result?: ThreadResult;
}

/**
 * How a tree starts a child of one of its runs (spawnChild): given to the
 * tree when it is made, so the links and hook host that call it need not
 * import the module that starts nodes with them.
 */
export type Spawn = (parent: ThreadRun, request: SpawnRequest) => Promise<SpawnedChild>;
