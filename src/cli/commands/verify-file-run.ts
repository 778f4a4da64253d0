import { resolve } from 'node:path';
import { loadExplicitTrust, verifyFileSync } from '../../integrity/index.js';
import { loadSpaceTrust, parseItemId, parseItemType } from '../../items/index.js';
import { spacesOf, type CliIo, type CommonOptions } from '../context.js';
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
  const explicit = options.trust.length > 0;
  // Keys given on the command line need no spaces: no project is looked
  // for then, though a --project given is still checked.
  const spaces =
    explicit && options.project === undefined ? undefined : spacesOf(options.project, io);
  const itemType = parseItemType(options.itemType);
  const trust =
    explicit || spaces === undefined
      ? await loadExplicitTrust(options.trust.map((p) => resolve(io.cwd, p)))
      : (await loadSpaceTrust(spaces)).trust;
  const itemId = options.itemId === undefined ? null : parseItemId(options.itemId);
  // One file: its signature is checked on this thread (verifyFileSync).
  const result = verifyFileSync(resolve(io.cwd, path), itemType, trust, {
    subject: itemId === null ? null : { itemId, itemType },
  });
  const out = { json: options.json === true, io };
  emit(out, { ...verifyResultJson(result), path }, verifyResultLines(result, path));
  return result.ok ? 0 : exitCodeForResults([result]);
}
