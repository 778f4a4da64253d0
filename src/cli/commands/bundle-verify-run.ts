import { runBundlerAction } from '../../bundle/index.js';
import { contextOf, type CliIo, type CommonOptions } from '../context.js';
import { progressBar } from '../progress.js';
import { emit } from '../report.js';

/**
 * `rye bundle verify <bundle_id>`: the body commander's action and the fast
 * path (../fast-path.ts) both run. Exit 0 when the bundle verified, 3 when not.
 */
export async function bundleVerifyRun(
  io: CliIo,
  bundleId: string,
  options: CommonOptions,
): Promise<number> {
  const ctx = contextOf(options, io);
  const bar = progressBar(io, 'verifying', !ctx.json);
  const result = await runBundlerAction(
    ctx.spaces,
    { action: 'verify', bundle_id: bundleId },
    { onProgress: bar.report },
  ).finally(bar.done);
  emit(ctx, result, reportLines(result));
  return result.ok ? 0 : 3;
}

/** The human report: the message, then each file that failed, one per line. */
function reportLines(result: Record<string, unknown>): string[] {
  const files = result['files'] as
    | {
        ok: string[];
        missing: string[];
        tampered: { path: string }[];
        unlisted: string[];
        bad_signature: { path: string; code: string }[];
      }
    | undefined;
  const lines = [String(result['message'] ?? '')];
  if (files === undefined) return lines;
  for (const p of files.missing) lines.push(`  missing    ${p}`);
  for (const t of files.tampered) lines.push(`  changed    ${t.path}`);
  for (const p of files.unlisted) lines.push(`  unlisted   ${p}`);
  for (const b of files.bad_signature) lines.push(`  signature  ${b.path} (${b.code})`);
  return lines;
}
