import { Command } from 'commander';
import { extname } from 'node:path';
import { RyeError, snakeCaseKeys } from '../../errors/index.js';
import { parseItemType, parseSpaceName } from '../../items/index.js';
import { CAPS_OPTION_HELP } from '../authority.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit, reportError } from '../report.js';
import type { Runner } from '../runner.js';

/** `rye sign <type> <item_id-or-glob> [--space project|user]`. */
export function signCommand(io: CliIo, run: Runner): Command {
  return withCommonOptions(new Command('sign'))
    .description('validate and sign items in place (one signature line each)')
    .argument('<type>', 'directive, tool or knowledge')
    .argument('<item>', 'item id or glob (apps/x/* one level, apps/x/** all below)')
    .option('--space <space>', 'project or user', 'project')
    .option('--caps <caps>', CAPS_OPTION_HELP)
    .action(
      (type: string, pattern: string, options: CommonOptions & { space: string; caps?: string }) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const itemType = parseItemType(type);
          const space = parseSpaceName(options.space);
          // The sign operation refuses system space (SPACE_READ_ONLY) before anything is read.
          const { signOperation } = await import('../../ops/index.js');
          const { operationContext } = await import('../operation-context.js');
          const report = await signOperation(await operationContext(ctx, options.caps), {
            itemType,
            pattern,
            space,
          });
          const { signed, failed, self_trusted: trustedAt, stale_lockfiles: stale } = report;
          const unchanged = signed.filter((s) => s.unchanged).length;
          if (!ctx.json)
            for (const f of failed)
              reportError(
                { json: false, io },
                new RyeError(f.code, f.message, f.details as Record<string, unknown>),
              );
          const document = {
            ...report,
            failed: failed.map((f) => ({ ...f, details: snakeCaseKeys(f.details) })),
          };
          emit(ctx, document, [
            ...signed.map(
              (s) =>
                `${s.unchanged ? 'unchanged' : 'signed'}  ${s.item_id}${extname(s.path)}${s.role === 'dependency' ? '  (dependency)' : ''}`,
            ),
            ...failed.map((f) => `failed  ${f.item_id}${extname(f.path)}`),
            ...(trustedAt === null
              ? []
              : [`Trusted your key ${report.fingerprint} in user space: ${trustedAt}`]),
            ...stale.map(
              (l) => `stale   ${l.path} pins ${l.pins}: run \`rye lock update ${l.tool_id}\``,
            ),
            ...report.warnings.map((w) => `warning  ${w.message}`),
            `Signed ${signed.length}${unchanged === 0 ? '' : ` (${unchanged} already signed, unchanged)`}, failed ${failed.length} (key ${report.fingerprint})`,
          ]);
          return failed.length === 0 ? 0 : 1;
        }),
    );
}
