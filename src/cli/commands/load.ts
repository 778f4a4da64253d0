import { Command } from 'commander';
import { RyeError } from '../../errors/index.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

type LoadCliOptions = CommonOptions & { allowXmlOnly?: boolean };

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
    .addHelpText('after', '\nWith --json the document adds the parsed metadata.')
    .action((type: string, id: string, options: LoadCliOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const { loadItem } = await import('../../threads/catalog/index.js');
        const item = await loadItem({
          project: ctx.spaces.project,
          env: io.env,
          cwd: io.cwd,
          item_type: type,
          item_id: id,
          allowXmlOnly: options.allowXmlOnly === true,
          // Operator authority: everything is visible, so deny is never called.
          visible: () => true,
          deny: (verb, itemType, itemId) => {
            throw new RyeError('INTERNAL_ERROR', `Cannot ${verb} ${itemType} ${itemId}`, {});
          },
        });
        const text = item.content.endsWith('\n') ? item.content.slice(0, -1) : item.content;
        emit(ctx, { ok: true, ...item }, text.split('\n'));
        return 0;
      }),
    );
}
