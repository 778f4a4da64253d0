import { Command } from 'commander';
import type { TrustSet } from '../../integrity/index.js';
import type { TreeViewNode } from '../../threads/control/index.js';
import {
  contextOf,
  withCommonOptions,
  type CliIo,
  type CommandContext,
  type CommonOptions,
} from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

type TrustOf = (ctx: CommandContext) => Promise<TrustSet>;

/** `rye thread tree|cost`: a thread's hierarchy and where its money went (docs/orchestration.md). */
export function addThreadViews(thread: Command, io: CliIo, run: Runner, trustOf: TrustOf): void {
  thread.addCommand(
    withCommonOptions(new Command('tree'))
      .description(
        'print the threads under a thread: status, depth, edge, capabilities dropped, cost',
      )
      .argument('<id>', 'thread id (a root shows its whole tree)')
      .action((id: string, options: CommonOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const { threadTree } = await import('../../threads/control/index.js');
          const tree = await threadTree(ctx.spaces.project, id, await trustOf(ctx));
          emit(ctx, { ok: true, tree }, treeLines(tree, ''));
          return 0;
        }),
      ),
  );
  thread.addCommand(
    withCommonOptions(new Command('cost'))
      .description("break a thread's spend down: its own, and each descendant's")
      .argument('<id>', 'thread id')
      .action((id: string, options: CommonOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const { threadTree } = await import('../../threads/control/index.js');
          const tree = await threadTree(ctx.spaces.project, id, await trustOf(ctx));
          const rows = flatten(tree).map((n) => ({
            thread_id: n.thread_id,
            directive_id: n.directive_id,
            depth: n.depth,
            status: n.status,
            turns: n.cost.turns,
            tokens_in: n.cost.tokens_in,
            tokens_out: n.cost.tokens_out,
            spend_usd: n.cost.spend_usd,
          }));
          emit(
            ctx,
            {
              ok: true,
              thread_id: tree.thread_id,
              total_usd: tree.cost.subtree_spend_usd,
              threads: rows,
            },
            [
              ...rows.map(
                (r) =>
                  `${'  '.repeat(r.depth - tree.depth)}$${r.spend_usd.padEnd(10)} ${r.thread_id}  ${r.directive_id}  ${r.turns} turns, ${r.tokens_in} in / ${r.tokens_out} out`,
              ),
              `total $${tree.cost.subtree_spend_usd}`,
            ],
          );
          return 0;
        }),
      ),
  );
}

function treeLines(node: TreeViewNode, indent: string): string[] {
  const dropped =
    node.caps_dropped.length === 0 ? '' : `  dropped: ${node.caps_dropped.join(', ')}`;
  const edge = node.edge === null || node.edge === 'spawn' ? '' : ` (${node.edge})`;
  const subtree = node.children.length === 0 ? '' : `, subtree $${node.cost.subtree_spend_usd}`;
  return [
    `${indent}${node.directive_id}${edge}  ${node.thread_id}  ${node.status}  depth ${node.depth}  $${node.cost.spend_usd}${subtree}${dropped}`,
    ...node.children.flatMap((c) => treeLines(c, `${indent}  `)),
  ];
}

function flatten(node: TreeViewNode): TreeViewNode[] {
  return [node, ...node.children.flatMap(flatten)];
}
