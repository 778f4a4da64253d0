import { Command } from 'commander';
import { resolve } from 'node:path';
import { loadExplicitTrust, verifyFile } from '../../integrity/index.js';
import { loadSpaceTrust, parseItemId, parseItemType } from '../../items/index.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';
import { verifyResultJson, verifyResultLines } from '../verify-json.js';
import { exitCodeForResults } from './verify.js';

type VerifyFileOptions = CommonOptions & { itemType: string; trust: string[]; itemId?: string };

/** `rye verify-file <path> --item-type <type> [--trust <file-or-dir>]...`: the conformance verb. */
export function verifyFileCommand(io: CliIo, run: Runner): Command {
  return withCommonOptions(new Command('verify-file'))
    .description(
      'verify one file; with --trust, exactly those keys are trusted and no key store is read',
    )
    .argument('<path>', 'file to verify')
    .requiredOption('--item-type <type>', 'directive, tool or knowledge')
    .option(
      '--trust <file-or-dir>',
      'trusted key (TOML or PEM) or folder of them; repeatable',
      collect,
      [],
    )
    .option(
      '--item-id <id>',
      'the id the file is verified as: a trusted key with a scope verifies only items it covers',
    )
    .action((path: string, options: VerifyFileOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const itemType = parseItemType(options.itemType);
        const trust =
          options.trust.length > 0
            ? await loadExplicitTrust(options.trust.map((p) => resolve(io.cwd, p)))
            : (await loadSpaceTrust(ctx.spaces)).trust;
        const itemId = options.itemId === undefined ? null : parseItemId(options.itemId);
        const result = await verifyFile(resolve(io.cwd, path), itemType, trust, {
          subject: itemId === null ? null : { itemId, itemType },
        });
        emit(ctx, { ...verifyResultJson(result), path }, verifyResultLines(result, path));
        return result.ok ? 0 : exitCodeForResults([result]);
      }),
    );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
