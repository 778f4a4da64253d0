import { Command } from 'commander';
import {
  addTrustedKey,
  loadSpaceTrust,
  parseSpaceName,
  removeTrustedKey,
} from '../../items/index.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit, warn } from '../report.js';
import type { Runner } from '../runner.js';

/** `rye trust add|list|remove`. */
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
    .description('list trusted keys, project → user → system')
    .action((options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const loaded = await loadSpaceTrust(ctx.spaces);
        const keys = loaded.keys.map((k) => ({
          fingerprint: k.fingerprint,
          owner: k.owner,
          space: k.space,
          path: k.source,
          shadowed: loaded.trust.get(k.fingerprint) !== k,
        }));
        for (const w of loaded.warnings) warn(ctx, w);
        emit(
          ctx,
          { keys, warnings: loaded.warnings },
          keys.length === 0
            ? ['No trusted keys.']
            : keys.map(
                (k) =>
                  `${k.fingerprint}  ${k.space.padEnd(7)}  ${k.owner === '' ? '-' : k.owner}${k.shadowed ? '  (shadowed)' : ''}`,
              ),
        );
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
