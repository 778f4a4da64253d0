import type { Command } from 'commander';
import type { RegistryParams, TransferProgressFn } from '../../registry/index.js';
import { contextOf, type CliIo } from '../context.js';
import { progressBar, type ProgressBar } from '../progress.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';
import { addBrowseCommands } from './registry-browse.js';
import {
  prepareToPin,
  registryClient,
  withRegistryOptions,
  type RegistryCliOptions,
} from './registry-options.js';

type PublishOptions = RegistryCliOptions & {
  version?: string;
  namespace?: string;
  force?: boolean;
  allowVersionMismatch?: boolean;
};

/**
 * `rye registry push|pull|push-bundle|pull-bundle` (the same code path as the
 * `rye/core/registry/registry` tool), then search, versions and yank.
 */
export function addPublishCommands(registry: Command, io: CliIo, run: Runner): void {
  const action = (options: PublishOptions, params: RegistryParams) =>
    run(options, async () => {
      const ctx = contextOf(options, io);
      const bar = progressBar(io, '', !ctx.json);
      const result = await (
        await registryClient()
      )
        .runRegistryAction(
          ctx.spaces,
          { ...params, registry: options.registry, version: options.version },
          { env: io.env, onProgress: transferBar(bar), prepareToPin },
        )
        .finally(bar.done);
      emit(ctx, result, humanLines(result));
      return 0;
    });

  withRegistryOptions(registry.command('push'))
    .description('publish a signed item; the answer is verified like a pull')
    .argument('<item_type>', 'directive, tool or knowledge')
    .argument('<item_id>', 'item id in the project (or user space)')
    .requiredOption('--version <semver>', 'version to publish (X.Y.Z); versions are immutable')
    .option('--namespace <ns>', 'namespace (default: your username)')
    .option(
      '--allow-version-mismatch',
      'publish even though the item declares another version than --version',
    )
    .action((itemType: string, itemId: string, options: PublishOptions) =>
      action(options, {
        action: 'push',
        item_type: itemType,
        item_id: itemId,
        namespace: options.namespace,
        allow_version_mismatch: options.allowVersionMismatch === true,
      }),
    );

  withRegistryOptions(registry.command('pull'))
    .description(
      'fetch an item, verify attestation and signatures, write it to .ai/<type>/<item_id>',
    )
    .argument('<item_type>', 'directive, tool or knowledge')
    .argument('<ref>', '<namespace>/<item_id>')
    .option('--version <semver>', 'version (default: the latest not yanked)')
    .option('--force', 'replace a different file already there')
    .action((itemType: string, ref: string, options: PublishOptions) =>
      action(options, {
        action: 'pull',
        item_type: itemType,
        item_id: ref,
        force: options.force === true,
      }),
    );

  withRegistryOptions(registry.command('push-bundle'))
    .description('verify a bundle here, upload its files, publish its signed manifest')
    .argument('<bundle_id>', 'bundle id, e.g. apps/task-manager')
    .option('--namespace <ns>', 'namespace (default: your username)')
    .action((bundleId: string, options: PublishOptions) =>
      action(options, { action: 'push_bundle', bundle_id: bundleId, namespace: options.namespace }),
    );

  withRegistryOptions(registry.command('pull-bundle'))
    .description('fetch a bundle, verify everything, then write all of its files (or none)')
    .argument('<ref>', '<namespace>/<bundle_id>')
    .option('--version <semver>', 'version (default: the latest not yanked)')
    .option('--force', 'replace different files already there')
    .action((ref: string, options: PublishOptions) =>
      action(options, { action: 'pull_bundle', bundle_id: ref, force: options.force === true }),
    );

  addBrowseCommands(registry, io, run);
}

const PHASE_LABELS = { verify: 'verifying', upload: 'uploading', download: 'downloading' };

/** A bundle transfer drawn on a progress bar: one labelled bar per phase. */
function transferBar(bar: ProgressBar): TransferProgressFn {
  let phase: string | null = null;
  return (p) => {
    if (p.phase !== phase) {
      phase = p.phase;
      bar.phase(PHASE_LABELS[p.phase]);
    }
    bar.report(p.files, p.filesTotal, p.bytes, p.bytesTotal);
  };
}

/** The human summary of a push or pull result. */
function humanLines(result: Record<string, unknown>): string[] {
  const s = (key: string) => String(result[key] ?? '');
  const att = (result['attestation'] ?? {}) as Record<string, string>;
  const ref = `${s('namespace')}/${s('item_id') || s('bundle_id')}@${s('version')}`;
  const attested = [
    `  content ${att['content_hash'] ?? '?'}`,
    `  author key ${att['author_fingerprint'] ?? '?'}, registry key ${att['registry_fingerprint'] ?? '?'}, attested ${att['attested_at'] ?? '?'}`,
  ];
  const key = result['registry_key'] as { fingerprint: string; pinned_now: boolean } | undefined;
  const pinned =
    key?.pinned_now === true
      ? [`  pinned registry key ${key.fingerprint} for ${s('registry')} (first use)`]
      : [];
  const trusted = result['trusted_key'] as
    { fingerprint: string; owner: string; path: string; added: boolean } | undefined;
  const trust =
    trusted === undefined
      ? []
      : [
          trusted.added
            ? `  trusted author key ${trusted.fingerprint} as ${trusted.owner} (${trusted.path})`
            : `  author key ${trusted.fingerprint} was already in ${trusted.path}`,
        ];
  const yanked = result['yanked'] === true ? ['  warning: this version is yanked'] : [];
  const warnings = ((result['warnings'] as string[] | undefined) ?? []).map(
    (w) => `  warning: ${w}`,
  );
  const declared = result['declared_version'];
  const mismatch =
    typeof declared === 'string' && declared !== result['version']
      ? [
          `  warning: the item declares version ${declared} (published with --allow-version-mismatch)`,
        ]
      : [];
  switch (result['action']) {
    case 'push':
      return [
        `Pushed ${s('item_type')} ${ref} to ${s('registry')} (${s('status')})`,
        ...attested,
        ...pinned,
        ...mismatch,
        ...warnings,
      ];
    case 'push_bundle': {
      const unlisted = (result['unlisted'] as string[] | undefined) ?? [];
      return [
        `Pushed bundle ${ref} to ${s('registry')} (${s('status')}): ${s('files')} files, ${s('blobs_uploaded')} uploaded (${s('bytes_uploaded')} bytes), ${s('blobs_reused')} already there`,
        ...attested,
        ...pinned,
        ...unlisted.map((p) => `  not in the manifest (not pushed): ${p}`),
      ];
    }
    case 'pull': {
      const lockError = result['lockfile_error'] as { code: string; message: string } | undefined;
      const lock =
        result['lockfile'] === undefined
          ? []
          : result['lockfile'] === null
            ? [`  no lockfile: ${lockError?.code ?? '?'}: ${lockError?.message ?? ''}`]
            : [`  lockfile ${s('lockfile')}`];
      return [
        `Pulled ${s('item_type')} ${ref} into ${s('path')} (${s('status')})`,
        ...attested,
        ...pinned,
        ...trust,
        ...lock,
        ...yanked,
      ];
    }
    case 'pull_bundle': {
      const written = (result['files_written'] as string[] | undefined) ?? [];
      const unchanged = (result['files_unchanged'] as string[] | undefined) ?? [];
      return [
        `Pulled bundle ${ref}: ${written.length} files written, ${unchanged.length} unchanged`,
        `  manifest ${s('manifest_path')}`,
        ...written.map((p) => `  wrote ${p}`),
        ...attested,
        ...pinned,
        ...trust,
        ...yanked,
      ];
    }
    default:
      return [];
  }
}
