import { Command } from 'commander';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { progressBar } from '../progress.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

type CreateOptions = CommonOptions & {
  version: string;
  entrypoint?: string;
  description?: string;
  include: string[];
  exclude?: string[];
  includeNodeModules?: boolean;
  force?: boolean;
};

/** `rye bundle create|verify|inspect|list` — the same code as the bundler tool. */
export function bundleCommand(io: CliIo, run: Runner): Command {
  const bundle = new Command('bundle').description(
    'signed bundle manifests: items, plans, lockfiles and app files',
  );
  const bundles = () => import('../../bundle/index.js');

  withCommonOptions(bundle.command('create'))
    .description('hash every file of a bundle and write its signed manifest')
    .argument('<bundle_id>', 'bundle id, e.g. apps/task-manager')
    .requiredOption('--version <semver>', 'bundle version (X.Y.Z)')
    .option(
      '--entrypoint <type:id>',
      'item to start from, e.g. directive:apps/task-manager/build_crud_app',
    )
    .option('--description <text>', 'one-line description')
    .option('--include <dir>', 'app folder to include (project-relative); repeatable', collect, [])
    .option(
      '--exclude <name>',
      'folder or file name to leave out (replaces the defaults); repeatable',
      collect,
    )
    .option(
      '--include-node-modules',
      "list every file of the app folders' node_modules (else the app must not load any)",
    )
    .option('--force', 'replace a manifest of the same version that lists other content')
    .action((bundleId: string, options: CreateOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const bar = progressBar(io, 'hashing', !ctx.json);
        const result = await (
          await bundles()
        )
          .runBundlerAction(
            ctx.spaces,
            {
              action: 'create',
              bundle_id: bundleId,
              version: options.version,
              entrypoint: options.entrypoint,
              description: options.description,
              include: options.include,
              ...(options.exclude === undefined ? {} : { exclude: options.exclude }),
              include_node_modules: options.includeNodeModules === true,
              force: options.force === true,
            },
            { onProgress: bar.report },
          )
          .finally(bar.done);
        const verb = { created: 'Created', replaced: 'Replaced', unchanged: 'Unchanged' }[
          String(result['status']) as 'created' | 'replaced' | 'unchanged'
        ];
        emit(ctx, result, [
          `${verb} ${String(result['path'])}: ${String(result['files'])} files, ${String(result['bytes'])} bytes${result['status'] === 'unchanged' ? ' (the manifest in place already lists exactly these; kept as it is)' : ''}`,
        ]);
        return 0;
      }),
    );

  withCommonOptions(bundle.command('verify'))
    .description(
      'verify a bundle: manifest signature, every file hash, inline signatures, unlisted files',
    )
    .argument('<bundle_id>', 'bundle id')
    .action((bundleId: string, options: CommonOptions) =>
      run(options, async () =>
        (await import('./bundle-verify-run.js')).bundleVerifyRun(io, bundleId, options),
      ),
    );

  withCommonOptions(bundle.command('inspect'))
    .description("show a bundle's manifest and whether its signature verifies")
    .argument('<bundle_id>', 'bundle id')
    .action((bundleId: string, options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const result = await (
          await bundles()
        ).runBundlerAction(ctx.spaces, { action: 'inspect', bundle_id: bundleId });
        const info = result['bundle'] as {
          id: string;
          version: string;
          created_at: string;
          description: string;
        };
        const sig = result['signature'] as {
          ok: boolean;
          verdict: string;
          fingerprint: string | null;
          signer: string | null;
        };
        const files = result['files'] as { path: string; inline_signed: boolean }[];
        emit(ctx, result, [
          `${info.id}@${info.version} (${String(result['space'])} space) created ${info.created_at}`,
          `  ${info.description}`,
          `  signature: ${sig.verdict}${sig.fingerprint === null ? '' : ` ${sig.fingerprint}`}${sig.signer === null ? '' : ` (${sig.signer})`}`,
          `  files (${files.length}):`,
          ...files.map((f) => `    ${f.path}${f.inline_signed ? '  [inline-signed]' : ''}`),
        ]);
        return 0;
      }),
    );

  withCommonOptions(bundle.command('list'))
    .description('list bundle manifests, project → user → system')
    .action((options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const result = await (await bundles()).runBundlerAction(ctx.spaces, { action: 'list' });
        const rows = result['bundles'] as {
          bundle_id: string;
          space: string;
          version?: string;
          file_count?: number;
          error?: { code: string };
        }[];
        emit(
          ctx,
          result,
          rows.length === 0
            ? ['No bundles.']
            : rows.map(
                (b) =>
                  `${b.bundle_id.padEnd(40)} ${b.space.padEnd(7)} ${b.error === undefined ? `${b.version ?? '?'} ${String(b.file_count ?? '?')} files` : `invalid: ${b.error.code}`}`,
              ),
        );
        return 0;
      }),
    );
  return bundle;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
