import type { HookHost } from '../hooks/index.js';
import type { ThreadRun } from '../loop/thread-run.js';
import type { ThreadTree } from './thread-tree.js';

/**
 * The hook host of a thread in a tree: a `<directive>` hook action runs as a
 * lineage-linked child (THREADS.md §12: edge `hook`, counted as a spawn,
 * depth + 1, its set the owner's ∩ the hook directive's, an account under the
 * owner's), run to its end. The tree's spawn refusals (THREAD_LIMIT_EXCEEDED,
 * BUDGET_DENIED…) reach the hook, which records them as `skipped_limit`.
 * A caller's own `hookHost` (tests, embedders) takes precedence.
 */
export function treeHookHost(tree: ThreadTree, run: ThreadRun): HookHost {
  return {
    runDirective: async (request) => {
      const child = await tree.spawn(run, {
        directiveId: request.directiveId,
        inputs: request.inputs,
        edge: 'hook',
        mode: 'wait',
      });
      // The owner's cancel reaches the child through the tree (its spawn links them).
      return child.result ?? (await child.done);
    },
  };
}
