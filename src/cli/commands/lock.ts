import { Command } from 'commander';
import { RyeError } from '../../errors/index.js';
import { loadSpaceTrust, parseItemId } from '../../items/index.js';
import { escapeControl, escapeControlLines } from '../../platform/index.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

type VersionOption = CommonOptions & { version?: string };

/** `rye lock list|show|verify|update|remove`. */
export function lockCommand(io: CliIo, run: Runner): Command {
  const lock = new Command('lock').description(
    'manage lockfiles: the pinned chain and dependencies of each tool',
  );
  const lockfiles = () => import('../../lockfile/index.js');
  const executor = () => import('../../executor/index.js');

  withCommonOptions(lock.command('list'))
    .description('list lockfiles, project → user → system')
    .action((options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const rows = (await (await lockfiles()).listLockfiles(ctx.spaces)).map((l) => ({
          tool_id: l.toolId,
          version: l.version,
          space: l.space,
          path: l.path,
          lockfile_version: l.lockfile?.lockfileVersion ?? null,
          generated_at: l.lockfile?.generatedAt ?? null,
          signed: l.lockfile === undefined ? null : l.lockfile.signature !== null,
          error: l.error ?? null,
        }));
        emit(
          ctx,
          { ok: true, lockfiles: rows },
          rows.length === 0
            ? ['No lockfiles.']
            : rows.map(
                (r) =>
                  `${`${r.tool_id}@${r.version}`.padEnd(48)} ${r.space.padEnd(7)} ${r.error === null ? `v${String(r.lockfile_version)} ${r.generated_at ?? ''}${r.signed === true ? ' signed' : ''}` : `invalid: ${r.error.code}`}`,
              ),
        );
        return 0;
      }),
    );

  withCommonOptions(lock.command('show'))
    .description("print a tool's lockfile (for its current version, or --version)")
    .argument('<tool_id>', 'tool id')
    .option('--version <version>', 'the pinned version (default: the tool’s current one)')
    .action((toolId: string, options: VersionOption) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        parseItemId(toolId);
        const version =
          options.version ?? (await (await executor()).rootVersion(ctx.spaces, toolId));
        const found = await (await lockfiles()).findLockfile(ctx.spaces, toolId, version);
        if (found === null) {
          throw new RyeError(
            'LOCKFILE_NOT_FOUND',
            `Cannot show the lockfile of ${toolId}@${version}: there is none`,
            { tool_id: toolId, version },
          );
        }
        if (ctx.json) {
          // It parsed as a lockfile (duplicate keys refused), so JSON.parse reads the same value.
          const lockfile: unknown = JSON.parse(found.text);
          emit(ctx, { ok: true, path: found.path, space: found.space, lockfile }, []);
          return 0;
        }
        // The file as it is, with only what a terminal would interpret escaped.
        const text = found.text.endsWith('\n') ? found.text : `${found.text}\n`;
        io.stdout(
          `# ${escapeControl(found.path)} (${found.space} space)\n${escapeControlLines(text)}`,
        );
        return 0;
      }),
    );

  withCommonOptions(lock.command('verify'))
    .description(
      'check every lockfile (or one tool’s) against the files today; exit 3 on any mismatch',
    )
    .argument('[tool_id]', 'only this tool')
    .action((toolId: string | undefined, options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        if (toolId !== undefined) parseItemId(toolId);
        const { trust } = await loadSpaceTrust(ctx.spaces);
        const results = await (await executor()).verifyLockfiles(ctx.spaces, trust, toolId);
        if (toolId !== undefined && results.length === 0) {
          throw new RyeError(
            'LOCKFILE_NOT_FOUND',
            `Cannot verify the lockfiles of ${toolId}: there are none`,
            { tool_id: toolId },
          );
        }
        const bad = results.filter((r) => r.status !== 'ok');
        const rows = results.map((r) => ({
          tool_id: r.toolId,
          version: r.version,
          space: r.space,
          path: r.path,
          status: r.status,
          code: r.code,
          message: r.message,
        }));
        emit(ctx, { ok: bad.length === 0, results: rows }, [
          ...results.flatMap((r) => [
            `${r.status.padEnd(8)} ${r.toolId}@${r.version} (${r.space})`,
            ...(r.message === null ? [] : [`         ${r.code ?? ''}: ${r.message}`]),
          ]),
          `${results.length - bad.length} ok, ${bad.length} failed`,
        ]);
        return bad.length === 0 ? 0 : 3;
      }),
    );

  withCommonOptions(lock.command('update'))
    .description(
      're-resolve a tool’s chain, verify every signature, and rewrite its lockfile (an unchanged one is kept as it is)',
    )
    .argument('<tool_id>', 'tool id')
    .action((toolId: string, options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        parseItemId(toolId);
        const { trust } = await loadSpaceTrust(ctx.spaces);
        const { path, lockfile, thirdParty, unchanged } = await (
          await executor()
        ).updateLockfile(ctx.spaces, toolId, trust);
        const deps =
          lockfile.verifiedDeps === undefined ? 0 : Object.keys(lockfile.verifiedDeps.files).length;
        emit(
          ctx,
          {
            ok: true,
            path,
            unchanged,
            lockfile_version: lockfile.lockfileVersion,
            chain: lockfile.resolvedChain.length,
            dependencies: deps,
            third_party: thirdParty,
          },
          [
            unchanged
              ? `Unchanged ${path}: it already pins these ${lockfile.resolvedChain.length} chain elements and ${deps} dependency files (kept as it is)`
              : `Wrote ${path}: ${lockfile.resolvedChain.length} chain elements, ${deps} dependency files pinned`,
            ...(thirdParty === 0
              ? []
              : [
                  `Pinned ${thirdParty} third-party file${thirdParty === 1 ? '' : 's'} (node_modules) by hash: no signature covers them, and the tool now runs them; review them if you have not`,
                ]),
          ],
        );
        return 0;
      }),
    );

  withCommonOptions(lock.command('remove'))
    .description('delete a tool’s lockfiles from project and user space')
    .argument('<tool_id>', 'tool id')
    .option('--version <version>', 'only this version')
    .action((toolId: string, options: VersionOption) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        parseItemId(toolId);
        const removed = await (
          await lockfiles()
        ).removeLockfiles(ctx.spaces, toolId, options.version);
        emit(
          ctx,
          { ok: true, removed },
          removed.map((p) => `Removed ${p}`),
        );
        return 0;
      }),
    );
  return lock;
}
