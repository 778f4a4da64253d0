import { Command } from 'commander';
import {
  addTrustedKey,
  approveProjectTrust,
  loadSpaceTrust,
  parseSpaceName,
  realFolder,
  removeTrustedKey,
  revokeProjectTrust,
  type ProjectTrust,
} from '../../items/index.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit, warn } from '../report.js';
import type { Runner } from '../runner.js';

/** `rye trust add|list|approve|revoke|remove`. */
export function trustCommand(io: CliIo, run: Runner): Command {
  const trust = new Command('trust').description(
    'manage trusted public keys (<space>/.ai/trusted_keys)',
  );

  withCommonOptions(trust.command('add'))
    .description('trust a public key from a PEM file or a trusted-key TOML file')
    .argument('<file>', 'PEM public key or TOML trusted-key document')
    .option('--owner <name>', 'owner recorded with the key')
    .option('--space <space>', 'user or project', 'user')
    .action((file: string, options: CommonOptions & { owner?: string; space: string }) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const space = parseSpaceName(options.space, ['user', 'project']);
        const { key, path } = await addTrustedKey(ctx.spaces, file, {
          owner: options.owner,
          space,
        });
        emit(ctx, { ok: true, fingerprint: key.fingerprint, owner: key.owner, space, path }, [
          `Trusted ${key.fingerprint} (${key.owner === '' ? 'no owner' : key.owner}) in ${space} space: ${path}`,
        ]);
        return 0;
      }),
    );

  withCommonOptions(trust.command('list'))
    .description('list trusted keys, project → user → system; project keys approved or pending')
    .action((options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const loaded = await loadSpaceTrust(ctx.spaces);
        const keys = [
          ...loaded.keys.map((k) => ({
            fingerprint: k.fingerprint,
            owner: k.owner,
            space: k.space,
            path: k.source,
            status: k.space === 'project' ? 'approved' : 'trusted',
            shadowed: loaded.trust.get(k.fingerprint) !== k,
          })),
          ...loaded.pending.map((k) => ({
            fingerprint: k.fingerprint,
            owner: k.owner,
            space: k.space,
            path: k.source,
            status: 'pending',
            shadowed: false,
          })),
        ];
        for (const w of loaded.warnings) warn(ctx, w);
        emit(ctx, { keys, project: projectJson(loaded.project), warnings: loaded.warnings }, [
          ...(keys.length === 0
            ? ['No trusted keys.']
            : keys.map(
                (k) =>
                  `${k.fingerprint}  ${k.space.padEnd(7)}  ${k.owner === '' ? '-' : k.owner}${k.status === 'pending' ? '  (pending: not trusted until approved)' : ''}${k.shadowed ? '  (shadowed)' : ''}`,
              )),
          ...(loaded.project.status === 'pending' ? [pendingLine(loaded.project)] : []),
        ]);
        return 0;
      }),
    );

  withCommonOptions(trust.command('approve'))
    .description("approve the project's .ai/trusted_keys as it is now (review it first)")
    .action((options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const state = await approveProjectTrust(ctx.spaces);
        for (const w of state.loaded.warnings) warn(ctx, w);
        const approved = state.status === 'approved';
        emit(ctx, { ok: true, approved, ...projectJson(state) }, [
          approved
            ? `Approved the trust store of ${state.project} (sha256 ${state.digest}): ${state.loaded.keys.length} key${state.loaded.keys.length === 1 ? '' : 's'}`
            : state.status === 'own-store'
              ? `${state.dir} is the store of your user or system space: nothing to approve`
              : `No key files in ${state.dir}: nothing to approve`,
          ...state.loaded.keys.map((k) => `  ${k.fingerprint}  ${k.owner === '' ? '-' : k.owner}`),
        ]);
        return 0;
      }),
    );

  withCommonOptions(trust.command('revoke'))
    .description("withdraw the approval of the project's .ai/trusted_keys")
    .action((options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const project = await realFolder(ctx.spaces.project);
        const revoked = await revokeProjectTrust(ctx.spaces);
        emit(ctx, { ok: true, revoked, project }, [
          revoked
            ? `Revoked the approval of ${project}: its project keys no longer count`
            : `No approval recorded for ${project}`,
        ]);
        return 0;
      }),
    );

  withCommonOptions(trust.command('remove'))
    .description('stop trusting a key (project and user space)')
    .argument('<fingerprint>', '16 hex characters')
    .option('--space <space>', 'only this space: user or project')
    .action((fingerprint: string, options: CommonOptions & { space?: string }) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const space =
          options.space === undefined
            ? undefined
            : parseSpaceName(options.space, ['user', 'project']);
        const removed = await removeTrustedKey(
          ctx.spaces,
          fingerprint,
          space === undefined ? {} : { space },
        );
        emit(
          ctx,
          { ok: true, fingerprint, removed },
          removed.map((p) => `Removed ${p}`),
        );
        return 0;
      }),
    );
  return trust;
}

function projectJson(state: ProjectTrust): Record<string, unknown> {
  return {
    project: state.project,
    trusted_keys: state.dir,
    status: state.status,
    sha256: state.digest,
    approved_sha256: state.approval?.sha256 ?? null,
    approved_at: state.approval?.approvedAt ?? null,
  };
}

function pendingLine(state: ProjectTrust): string {
  return `Project keys in ${state.dir} are pending${state.approval === null ? '' : ' (changed since you approved them)'}: review them, then \`rye trust approve --project ${state.project}\``;
}
