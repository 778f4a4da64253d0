import { resolve } from 'node:path';
import { loadExplicitTrust, verifyFile } from '../../integrity/index.js';
import { loadSpaceTrust, parseItemId, parseItemType } from '../../items/index.js';
import { contextOf, type CliIo, type CommonOptions } from '../context.js';
import { emit } from '../report.js';
import { verifyResultJson, verifyResultLines } from '../verify-json.js';
import { exitCodeForResults } from './verify-run.js';

export type VerifyFileOptions = CommonOptions & {
  readonly itemType: string;
  readonly trust: readonly string[];
  readonly itemId?: string;
};

/**
 * What `rye verify-file` does once its command line is parsed. Apart from the
 * commander definition so that the argument fast path (../fast-path.ts) runs
 * the very same body without loading commander.
 */
export async function verifyFileRun(
  io: CliIo,
  path: string,
  options: VerifyFileOptions,
): Promise<number> {
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
}
