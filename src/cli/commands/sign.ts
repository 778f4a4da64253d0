import { Command } from 'commander';
import { isRyeError, RyeError, snakeCaseKeys } from '../../errors/index.js';
import { readSigner } from '../../integrity/index.js';
import {
  ensureSelfTrusted,
  keyDir,
  parseItemType,
  parseSpaceName,
  selectItems,
  signItemFile,
  type ResolvedItem,
  type SignedItem,
} from '../../items/index.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit, reportError } from '../report.js';
import type { Runner } from '../runner.js';

interface Failure {
  readonly item: ResolvedItem;
  readonly error: unknown;
}

/** `rye sign <type> <item_id-or-glob> [--space project|user]`. */
export function signCommand(io: CliIo, run: Runner): Command {
  return withCommonOptions(new Command('sign'))
    .description('validate and sign items in place (one signature line each)')
    .argument('<type>', 'directive, tool or knowledge')
    .argument('<item>', 'item id or glob (apps/x/* one level, apps/x/** all below)')
    .option('--space <space>', 'project or user', 'project')
    .action((type: string, pattern: string, options: CommonOptions & { space: string }) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const itemType = parseItemType(type);
        const space = parseSpaceName(options.space);
        if (space === 'system') {
          throw new RyeError('SPACE_READ_ONLY', 'Cannot sign in system space: it is read-only', {
            space,
          });
        }
        const items = await selectItems(ctx.spaces, itemType, pattern, [space]);
        const signer = await readSigner(keyDir(ctx.spaces));
        const signed: SignedItem[] = [];
        const failed: Failure[] = [];
        for (const item of items) {
          try {
            signed.push(await signItemFile(item, signer));
          } catch (error) {
            if (!isRyeError(error)) throw error;
            failed.push({ item, error });
          }
        }
        const trustedAt = signed.length > 0 ? await ensureSelfTrusted(ctx.spaces, signer) : null;
        // Lockfiles pinning what was just signed are stale now; say so where the signing happens.
        const stale =
          itemType === 'tool' && signed.length > 0
            ? await (
                await import('../../lockfile/index.js')
              ).lockfilesAffectedBy(
                ctx.spaces,
                signed.map((s) => s.item),
              )
            : [];
        if (!ctx.json) for (const f of failed) reportError({ json: false, io }, f.error);
        emit(
          ctx,
          {
            ok: failed.length === 0,
            summary: { signed: signed.length, failed: failed.length },
            fingerprint: signer.fingerprint,
            signed: signed.map((s) => ({
              item_type: s.item.itemType,
              item_id: s.item.itemId,
              space: s.item.space,
              path: s.item.path,
              role: s.role,
              content_hash: s.fields.contentHash,
            })),
            failed: failed.map((f) => ({
              item_type: f.item.itemType,
              item_id: f.item.itemId,
              path: f.item.path,
              ...(isRyeError(f.error)
                ? {
                    code: f.error.code,
                    message: f.error.message,
                    details: snakeCaseKeys(f.error.details),
                  }
                : {}),
            })),
            self_trusted: trustedAt,
            stale_lockfiles: stale.map((l) => ({ path: l.path, tool_id: l.toolId, pins: l.pins })),
          },
          [
            ...signed.map(
              (s) =>
                `signed  ${s.item.itemId}${s.item.extension}${s.role === 'dependency' ? '  (dependency)' : ''}`,
            ),
            ...failed.map((f) => `failed  ${f.item.itemId}${f.item.extension}`),
            ...(trustedAt === null
              ? []
              : [`Trusted your key ${signer.fingerprint} in user space: ${trustedAt}`]),
            ...stale.map(
              (l) => `stale   ${l.path} pins ${l.pins}: run \`rye lock update ${l.toolId}\``,
            ),
            `Signed ${signed.length}, failed ${failed.length} (key ${signer.fingerprint})`,
          ],
        );
        return failed.length === 0 ? 0 : 1;
      }),
    );
}
