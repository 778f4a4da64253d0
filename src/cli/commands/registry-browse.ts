import type { Command } from 'commander';
import type { CliIo } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';
import {
  registryClient,
  registryContext,
  withRegistryOptions,
  type RegistryCliOptions,
} from './registry-options.js';

type SearchOptions = RegistryCliOptions & {
  type?: string;
  namespace?: string;
  kind?: string;
  limit?: string;
};

/** `rye registry search|versions|yank`. */
export function addBrowseCommands(registry: Command, io: CliIo, run: Runner): void {
  withRegistryOptions(registry.command('search'))
    .description('search published items and bundles')
    .argument('[text]', 'words to look for in ids and descriptions')
    .option('--type <item_type>', 'directive, tool or knowledge')
    .option('--namespace <ns>', 'only this namespace')
    .option('--kind <kind>', 'item or bundle')
    .option('--limit <n>', 'at most this many results (1-200, default 50)')
    .action((text: string | undefined, options: SearchOptions) =>
      run(options, async () => {
        const { ctx, session } = await registryContext(options, io);
        const result = await (
          await registryClient()
        ).search(session, {
          query: text,
          itemType: options.type,
          namespace: options.namespace,
          kind: options.kind,
          limit: options.limit,
        });
        const rows = result['results'] as {
          kind: string;
          item_type: string | null;
          namespace: string;
          item_id: string;
          latest_version: string;
          description: string | null;
        }[];
        emit(
          ctx,
          result,
          rows.length === 0
            ? ['No results.']
            : rows.map(
                (r) =>
                  `${(r.item_type ?? r.kind).padEnd(9)} ${`${r.namespace}/${r.item_id}`.padEnd(40)} ${r.latest_version.padEnd(10)} ${r.description ?? ''}`,
              ),
        );
        return 0;
      }),
    );

  withRegistryOptions(registry.command('versions'))
    .description('list the published versions of an item or a bundle')
    .argument('<type>', 'directive, tool, knowledge or bundle')
    .argument('<ref>', '<namespace>/<id>')
    .action((type: string, ref: string, options: RegistryCliOptions) =>
      run(options, async () => {
        const { ctx, session } = await registryContext(options, io);
        const result = await (await registryClient()).listVersions(session, type, ref);
        const rows = result['versions'] as {
          version: string;
          yanked: boolean;
          published_at: string;
        }[];
        emit(
          ctx,
          result,
          rows.length === 0
            ? ['No versions.']
            : rows.map(
                (v) => `${v.version.padEnd(12)} ${v.published_at}${v.yanked ? '  (yanked)' : ''}`,
              ),
        );
        return 0;
      }),
    );

  withRegistryOptions(registry.command('yank'))
    .description('yank a version (it stays pullable by exact version, never as latest)')
    .argument('<type>', 'directive, tool, knowledge or bundle')
    .argument('<ref>', '<namespace>/<id>')
    .requiredOption('--version <semver>', 'the version to yank')
    .option('--undo', 'restore a yanked version')
    .action(
      (
        type: string,
        ref: string,
        options: RegistryCliOptions & { version: string; undo?: boolean },
      ) =>
        run(options, async () => {
          const { ctx, session } = await registryContext(options, io);
          const result = await (
            await registryClient()
          ).yank(session, type, ref, options.version, options.undo === true);
          emit(ctx, result, [
            `${result['yanked'] === true ? 'Yanked' : 'Restored'} ${type} ${ref}@${options.version}`,
          ]);
          return 0;
        }),
    );
}
