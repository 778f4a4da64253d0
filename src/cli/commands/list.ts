import { Command } from 'commander';
import { parseItemType, parseSpaceName } from '../../items/index.js';
import type { ListedItem } from '../../catalog/index.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

type ListCliOptions = CommonOptions & { space?: string };

/** `rye list [type] [--space s]`: every item with its version, space and verdict. */
export function listCommand(io: CliIo, run: Runner): Command {
  return withCommonOptions(new Command('list'))
    .description(
      'list items by type and id: the file each id resolves to, with its version, space and verdict',
    )
    .argument('[type]', 'only directive, tool or knowledge items')
    .option(
      '--space <space>',
      'only project, user or system files (shadowed ones included, marked)',
    )
    .action((type: string | undefined, options: ListCliOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const { listItems } = await import('../../catalog/index.js');
        const items = await listItems({
          project: ctx.spaces.project,
          env: io.env,
          cwd: io.cwd,
          ...(type === undefined ? {} : { item_type: parseItemType(type) }),
          ...(options.space === undefined ? {} : { space: parseSpaceName(options.space) }),
        });
        emit(ctx, { ok: true, items }, listLines(items));
        return 0;
      }),
    );
}

function listLines(items: readonly ListedItem[]): string[] {
  if (items.length === 0) return ['No items.'];
  const width = Math.min(60, Math.max(...items.map((i) => i.item_id.length)));
  return items.map((i) => {
    const verdict = i.code === null ? i.verdict : `${i.verdict} (${i.code})`;
    const flags = i.shadowed ? ' shadowed' : '';
    return `${i.item_type.padEnd(9)} ${i.item_id.padEnd(width)} ${(i.version ?? '-').padEnd(8)} ${i.space.padEnd(7)} ${verdict}${flags}`;
  });
}
