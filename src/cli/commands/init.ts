import { join } from 'node:path';
import { Command } from 'commander';
import { initProject, resolveSpaces } from '../../items/index.js';
import type { CliIo, CommonOptions } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

type InitOptions = CommonOptions & { key: boolean };

/** What to commit, in the order the README gives it (printed after `rye init`). */
const COMMIT = [
  'directives/',
  'tools/',
  'knowledge/',
  'lockfiles/',
  'bundles/',
  'plans/',
  'trusted_keys/',
];
const NEVER_COMMIT = [
  'private keys (they live in <user>/.ai/keys)',
  'threads/',
  'a .env with secrets',
];

/**
 * `rye init [--project DIR]`: the working directory (or DIR, created when
 * missing) becomes a project. No discovery here: init makes the project.
 */
export function initCommand(io: CliIo, run: Runner): Command {
  return new Command('init')
    .description(
      'make this folder a rye project (.ai/ skeleton, README) and a key if you have none',
    )
    .option('--json', 'print one JSON document on stdout')
    .option('--project <dir>', 'the folder to initialize (default: the working directory)')
    .option('--no-key', 'do not make a signing key, even if you have none')
    .action((options: InitOptions) =>
      run(options, async () => {
        const spaces = resolveSpaces({ project: options.project, env: io.env, cwd: io.cwd });
        const result = await initProject(spaces, { key: options.key });
        const key = result.key;
        const keyLine =
          key.status === 'skipped'
            ? 'key: not made (--no-key); `rye keys generate` makes one'
            : key.status === 'generated'
              ? `key: made ${key.fingerprint} (private key ${key.path}, mode 0600: keep it secret)`
              : `key: yours, ${key.fingerprint}`;
        const changed = result.created.length > 0 || key.status === 'generated';
        emit(
          { json: options.json === true, io },
          {
            ok: true,
            project: result.project,
            status: changed ? 'initialized' : 'unchanged',
            created: result.created,
            kept: result.kept,
            key:
              key.status === 'skipped'
                ? { status: 'skipped', fingerprint: null, private_key_path: null }
                : { status: key.status, fingerprint: key.fingerprint, private_key_path: key.path },
            readme: join(result.project, '.ai', 'README.md'),
            commit: COMMIT.map((c) => `.ai/${c}`),
            never_commit: NEVER_COMMIT,
          },
          [
            changed
              ? `Initialized a rye project in ${result.project}`
              : `Already a rye project: ${result.project} (nothing changed)`,
            ...(result.created.length === 0 ? [] : [`  created ${result.created.join(' ')}`]),
            `  ${keyLine}`,
            `Commit .ai/ (${COMMIT.join(', ')}); never commit ${NEVER_COMMIT.join(', ')}. See .ai/README.md.`,
            'Next: write an item under .ai/tools/ (or directives/, knowledge/), then `rye sign tool <item_id>`.',
          ],
        );
        return 0;
      }),
    );
}
