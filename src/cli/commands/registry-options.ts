import type { Command } from 'commander';
import { RyeError } from '../../errors/index.js';
import type { PrepareToPin } from '../../lockfile/index.js';
import type { RegistrySession } from '../../registry/index.js';
import {
  contextOf,
  withCommonOptions,
  type CliIo,
  type CommandContext,
  type CommonOptions,
} from '../context.js';

/** Options every `rye registry` client command takes. */
export type RegistryCliOptions = CommonOptions & { registry?: string };

/** The registry library, loaded on first use (keeps `rye --help` light). */
export const registryClient = () => import('../../registry/index.js');

/**
 * The executor's verification of a pulled tool for its lockfile (the port
 * the registry pins with), loaded only when a pull pins a tool.
 */
export const prepareToPin: PrepareToPin = async (spaces, toolId, trust) =>
  (await import('../../executor/index.js')).prepareToPin(spaces, toolId, trust);

/** Add `--json`, `--project` and `--registry URL`. */
export function withRegistryOptions(command: Command): Command {
  return withCommonOptions(command).option(
    '--registry <url>',
    'registry URL (default: $RYE_REGISTRY_URL, else http://127.0.0.1:8080)',
  );
}

/** The command's context and a session with the registry it names. */
export async function registryContext(
  options: RegistryCliOptions,
  io: CliIo,
): Promise<{ ctx: CommandContext; session: RegistrySession }> {
  const ctx = contextOf(options, io);
  const { openSession } = await registryClient();
  return {
    ctx,
    session: openSession({ spaces: ctx.spaces, registry: options.registry, env: io.env }),
  };
}

/**
 * The account password: from standard input with `--password-stdin` (one
 * trailing newline removed; for scripts), else asked on the terminal without
 * echo (twice for `confirm`, i.e. signup). Passwords are never taken from
 * argv, where other users can see them.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT (no terminal and no --password-stdin,
 *   an empty password, two entries that differ, a cancelled prompt)
 */
export async function readPassword(
  io: CliIo,
  passwordStdin: boolean | undefined,
  options: { readonly confirm?: boolean } = {},
): Promise<string> {
  if (passwordStdin === true) return passwordFromStdin(io);
  if (io.stdinIsTTY !== true || io.readSecret === undefined) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      'Cannot read the password: standard input is not a terminal to ask on; pass --password-stdin and write it there, e.g. `printf %s "$PW" | rye registry login --username U --password-stdin`',
      {},
    );
  }
  const password = await io.readSecret('Password: ');
  if (password === '') throw emptyPassword();
  if (options.confirm === true && (await io.readSecret('Repeat the password: ')) !== password) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      'Cannot read the password: the two entries differ; nothing was sent',
      {},
    );
  }
  return password;
}

async function passwordFromStdin(io: CliIo): Promise<string> {
  if (io.stdinIsTTY === true || io.readStdin === undefined) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      'Cannot read the password: --password-stdin needs the password piped on standard input, not a terminal (leave the option out to be asked)',
      {},
    );
  }
  const password = (await io.readStdin()).replace(/\r?\n$/, '');
  if (password === '') throw emptyPassword();
  return password;
}

function emptyPassword(): RyeError {
  return new RyeError('USAGE_INVALID_ARGUMENT', 'Cannot read the password: it is empty', {});
}
