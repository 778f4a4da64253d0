import { exitCodeFor } from '../../errors/index.js';
import { type VerifyResult } from '../../integrity/index.js';
import {
  RESERVED_PREFIX,
  ignoredReservedFiles,
  loadSpaceTrust,
  parseItemType,
  selectItems,
  verifyItemFile,
} from '../../items/index.js';
import { contextOf, type CliIo, type CommonOptions } from '../context.js';
import { emit, warn } from '../report.js';
import { verifyResultJson, verifyResultLines } from '../verify-json.js';

export type VerifyOptions = CommonOptions & { readonly requireFullCoverage?: boolean };

/**
 * What `rye verify <type> <item>` does once its command line is parsed: apart
 * from the commander definition so that the argument fast path
 * (../fast-path.ts) runs the same body without loading commander.
 */
export async function verifyRun(
  io: CliIo,
  type: string,
  pattern: string,
  options: VerifyOptions,
): Promise<number> {
  const ctx = contextOf(options, io);
  const itemType = parseItemType(type);
  const [items, loaded, ignored] = await Promise.all([
    selectItems(ctx.spaces, itemType, pattern),
    loadSpaceTrust(ctx.spaces),
    ignoredReservedFiles(ctx.spaces, itemType, pattern),
  ]);
  for (const w of loaded.warnings) warn(ctx, w);
  const results = await Promise.all(
    items.map(async (item) => ({
      item,
      result: strict(await verifyItemFile(item, loaded.trust), options),
    })),
  );
  const failed = results.filter((r) => !r.result.ok);
  emit(
    ctx,
    {
      ok: failed.length === 0,
      summary: {
        total: results.length,
        ok: results.length - failed.length,
        failed: failed.length,
      },
      results: results.map((r) => verifyResultJson(r.result, r.item)),
      ignored: ignored.map((i) => ({
        item_id: i.itemId,
        space: i.space,
        path: i.path,
        reason: `ids under ${RESERVED_PREFIX} resolve from system space only`,
      })),
    },
    [
      ...ignored.map(
        (i) =>
          `ignored ${i.itemId}${i.extension} (${i.space}): ids under ${RESERVED_PREFIX} resolve from system space only`,
      ),
      ...results.flatMap((r) =>
        verifyResultLines(r.result, `${r.item.itemId}${r.item.extension} (${r.item.space})`),
      ),
      `${results.length - failed.length} ok, ${failed.length} failed`,
    ],
  );
  return exitCodeForResults(failed.map((r) => r.result));
}

/** With --require-full-coverage, an xml-only directive fails INTEGRITY_PARTIAL_COVERAGE. */
function strict(result: VerifyResult, options: VerifyOptions): VerifyResult {
  if (!options.requireFullCoverage || !result.ok || result.coverage !== 'xml-only') return result;
  return {
    ...result,
    ok: false,
    code: 'INTEGRITY_PARTIAL_COVERAGE',
    message: `Cannot accept ${result.path ?? 'the directive'}: its signature covers only the <directive> span`,
  };
}

/** 0 when all passed; otherwise the highest-severity exit code among the failures (3 over 1). */
export function exitCodeForResults(failed: readonly VerifyResult[]): number {
  let code = 0;
  for (const r of failed) code = Math.max(code, exitCodeFor(r.code ?? 'INTEGRITY_UNSIGNED'));
  return code;
}
