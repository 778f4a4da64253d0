import { Command } from 'commander';
import { parseItemType } from '../../items/index.js';
import { CAPS_OPTION_HELP } from '../authority.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

type LoadCliOptions = CommonOptions & { allowXmlOnly?: boolean; caps?: string };

/** `rye load <type> <id> [--allow-xml-only]`: print an item's verified content. */
export function loadCommand(io: CliIo, run: Runner): Command {
  return withCommonOptions(new Command('load'))
    .description(
      'print the verified content of an item (signature line removed); refused unless it verifies',
    )
    .argument('<type>', 'directive, tool or knowledge')
    .argument('<id>', 'item id, resolved project → user → system')
    .option(
      '--allow-xml-only',
      'accept a directive signed over its <directive> span only (the text around it is unauthenticated)',
    )
    .option('--caps <caps>', CAPS_OPTION_HELP)
    .addHelpText('after', '\nWith --json the document adds the parsed metadata.')
    .action((type: string, id: string, options: LoadCliOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const { loadOperation } = await import('../../ops/index.js');
        const { operationContext } = await import('../operation-context.js');
        const item = await loadOperation(
          await operationContext(ctx, options.caps),
          { item_type: parseItemType(type), item_id: id },
          { allowXmlOnly: options.allowXmlOnly === true },
        );
        const text = item.content.endsWith('\n') ? item.content.slice(0, -1) : item.content;
        emit(ctx, { ok: true, ...item }, text.split('\n'));
        return 0;
      }),
    );
}
