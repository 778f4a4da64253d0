import { Command } from 'commander';
import { parseItemType, parseSpaceName } from '../../items/index.js';
import type { SearchResult } from '../../catalog/index.js';
import { CAPS_OPTION_HELP } from '../authority.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

type SearchCliOptions = CommonOptions & {
  type?: string;
  space?: string;
  limit: string;
  caps?: string;
};

/** `rye search <query> [--type t] [--space s] [--limit n]`: ranked full-text search, operator authority. */
export function searchCommand(io: CliIo, run: Runner): Command {
  return withCommonOptions(new Command('search'))
    .description(
      'search the items of the three spaces, best match first; every result shows its signature verdict',
    )
    .argument('<query>', 'words that must all match (word* matches a prefix); "" lists by id')
    .option('--type <type>', 'only directive, tool or knowledge items')
    .option(
      '--space <space>',
      'only project, user or system files (shadowed ones included, marked)',
    )
    .option('--limit <n>', 'at most n results, 1 to 100', '20')
    .option('--caps <caps>', CAPS_OPTION_HELP)
    .addHelpText(
      'after',
      '\nThe query is plain words: FTS operators (OR, NEAR, -, :, parentheses, quotes) are searched as text.\nThe index lives under RYE_CACHE_DIR (default <user>/.ai/cache)/search and is refreshed on every search.',
    )
    .action((query: string, options: SearchCliOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const { searchItems } = await import('../../catalog/index.js');
        const { allowed } = await import('../../capabilities/index.js');
        const { operationContext } = await import('../operation-context.js');
        const { authority } = await operationContext(ctx, options.caps);
        const results = await searchItems({
          project: ctx.spaces.project,
          env: io.env,
          cwd: io.cwd,
          query,
          ...(options.type === undefined ? {} : { item_type: parseItemType(options.type) }),
          ...(options.space === undefined ? {} : { space: parseSpaceName(options.space) }),
          limit: Number(options.limit),
          // Results outside the authority's search grants are filtered out, never reported.
          visible: (type, id) => allowed(authority.caps, 'search', type, id),
        });
        emit(ctx, { ok: true, query, results }, searchLines(query, results));
        return 0;
      }),
    );
}

function searchLines(query: string, results: readonly SearchResult[]): string[] {
  if (results.length === 0) return [`No items match "${query}".`];
  return results.flatMap((r) => {
    const verdict = r.code === null ? r.verdict : `${r.verdict} (${r.code})`;
    const about = [r.title, r.description].filter((t) => t !== null && t !== '').join(': ');
    const head = `${r.item_type} ${r.item_id} [${r.space}${r.shadowed ? ', shadowed' : ''}] ${verdict}`;
    return [
      about === '' ? head : `${head} - ${about}`,
      ...(r.snippet === '' ? [] : [`    ${r.snippet.replace(/\s+/g, ' ')}`]),
    ];
  });
}
