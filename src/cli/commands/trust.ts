import { Command } from 'commander';
import { RyeError } from '../../errors/index.js';
import {
  SCOPE_ITEM_TYPES,
  describeScopes,
  keyScopeJson,
  scopePatternProblem,
  type KeyScope,
  type KeyScopeJson,
  type ScopeItemType,
} from '../../integrity/index.js';
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
    .option(
      '--scope <pattern>',
      'only item ids matching: an id, prefix/* (one level) or prefix/** (any depth); repeatable',
      collect,
      [],
    )
    .option(
      '--item-type <type>',
      `only items of this type (${SCOPE_ITEM_TYPES.join(', ')}); repeatable`,
      collect,
      [],
    )
    .action((file: string, options: AddOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const space = parseSpaceName(options.space, ['user', 'project']);
        const { key, path } = await addTrustedKey(ctx.spaces, file, {
          owner: options.owner,
          space,
          scope: scopeOf(options),
        });
        const scope = (key.scopes?.length ?? 0) === 0 ? '' : ` for ${describeScopes(key.scopes)}`;
        emit(
          ctx,
          {
            ok: true,
            fingerprint: key.fingerprint,
            owner: key.owner,
            space,
            path,
            ...scopeJson(key.scopes),
          },
          [
            `Trusted ${key.fingerprint} (${key.owner === '' ? 'no owner' : key.owner}) in ${space} space${scope}: ${path}`,
          ],
        );
        return 0;
      }),
    );

  withCommonOptions(trust.command('list'))
    .description('list trusted keys, project → user → system; project keys approved or pending')
    .action((options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const loaded = await loadSpaceTrust(ctx.spaces);
        const rows = [
          ...loaded.keys.map((k) => ({
            key: k,
            status: k.space === 'project' ? 'approved' : 'trusted',
            // The effective key of a repeated fingerprint is the first one read (with every copy's scope).
            shadowed: loaded.trust.get(k.fingerprint)?.source !== k.source,
          })),
          ...loaded.pending.map((k) => ({ key: k, status: 'pending', shadowed: false })),
        ];
        const keys = rows.map(({ key: k, status, shadowed }) => ({
          fingerprint: k.fingerprint,
          owner: k.owner,
          space: k.space,
          path: k.source,
          status,
          shadowed,
          ...scopeJson(k.scopes),
        }));
        for (const w of loaded.warnings) warn(ctx, w);
        emit(
          ctx,
          { ok: true, keys, project: projectJson(loaded.project), warnings: loaded.warnings },
          [
            ...(rows.length === 0
              ? ['No trusted keys.']
              : rows.map(
                  ({ key: k, status, shadowed }) =>
                    `${k.fingerprint}  ${k.space.padEnd(7)}  ${k.owner === '' ? '-' : k.owner}${(k.scopes?.length ?? 0) === 0 ? '' : `  for ${describeScopes(k.scopes)}`}${status === 'pending' ? '  (pending: not trusted until approved)' : ''}${shadowed ? '  (shadowed)' : ''}`,
                )),
            ...(loaded.project.status === 'pending' ? [pendingLine(loaded.project)] : []),
          ],
        );
        return 0;
      }),
    );

  withCommonOptions(trust.command('approve'))
    .description("approve the project's .ai/trusted_keys as it is now (review it first)")
    .option(
      '--sha256 <digest>',
      'approve only if the store still has this digest (the one `rye trust list` showed you)',
    )
    .action((options: CommonOptions & { sha256?: string }) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const state = await approveProjectTrust(ctx.spaces, options.sha256);
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

type AddOptions = CommonOptions & {
  owner?: string;
  space: string;
  scope: string[];
  itemType: string[];
};

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * The restriction `--scope` / `--item-type` ask for, or undefined for none.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT for a bad pattern or type.
 */
function scopeOf(options: AddOptions): KeyScope | undefined {
  if (options.scope.length === 0 && options.itemType.length === 0) return undefined;
  for (const pattern of options.scope) {
    const why = scopePatternProblem(pattern);
    if (why !== undefined) throw usage(`--scope "${pattern}": ${why}`);
  }
  for (const type of options.itemType) {
    if (!(SCOPE_ITEM_TYPES as readonly string[]).includes(type))
      throw usage(`--item-type "${type}": use ${SCOPE_ITEM_TYPES.join(', ')}`);
  }
  return {
    ids: options.scope.length === 0 ? null : [...new Set(options.scope)],
    itemTypes:
      options.itemType.length === 0 ? null : [...new Set(options.itemType as ScopeItemType[])],
  };
}

function usage(why: string): RyeError {
  return new RyeError('USAGE_INVALID_ARGUMENT', `Cannot trust the key: ${why}`, {});
}

/** `scope` / `item_types` of a key for JSON output: null when unrestricted on that axis. */
function scopeJson(scopes: readonly KeyScope[] | undefined): {
  scope: readonly string[] | null;
  item_types: readonly string[] | null;
  restrictions: readonly KeyScopeJson[];
} {
  const first = scopes?.[0];
  return {
    scope: first?.ids ?? null,
    item_types: first?.itemTypes ?? null,
    restrictions: (scopes ?? []).map(keyScopeJson),
  };
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
