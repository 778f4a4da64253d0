import { existsSync } from 'node:fs';
import { RyeError } from '../errors/index.js';
import type { TokenHolder } from '../capabilities/index.js';
import { RegistryDb, registryDbPath } from '../threads/store/index.js';
import { commandAuthority } from './authority.js';
import { contextOf, type CliIo, type CommonOptions } from './context.js';
import { flagGiven } from './flag-scope.js';

/**
 * What a command may do in a process held to a `RYE_CAP_TOKEN`:
 * - `operation`: one of the four operations; it acts under the token's
 *   authority (authority.ts), so the token's grants decide;
 * - `reach`: a thread command whose every argument is a thread id; allowed
 *   only for threads the holder reaches (a ceiling: the trees started under
 *   it; a thread: its own descendants);
 * - `mint`: `rye cap mint`, under a ceiling only, attenuating (cap.ts).
 * Every other command is refused, whatever the token holds: trust, keys,
 * dotenv, lockfile and bundle writes, the registry, revocation, the sandbox
 * admin, `list` and `verify` (which would answer for items the token's
 * search grants do not reach) and `mcp serve`.
 */
const UNDER_TOKEN: ReadonlyMap<string, 'operation' | 'reach' | 'mint'> = new Map([
  ['execute', 'operation'],
  ['search', 'operation'],
  ['load', 'operation'],
  ['sign', 'operation'],
  ['thread show', 'reach'],
  ['thread verify', 'reach'],
  ['thread tree', 'reach'],
  ['thread cost', 'reach'],
  ['thread tail', 'reach'],
  ['thread wait', 'reach'],
  ['thread cancel', 'reach'],
  ['thread resume', 'reach'],
  ['cap mint', 'mint'],
  // Serves the four operations under the token's authority (docs/mcp.md).
  ['mcp serve', 'operation'],
]);

/**
 * Options only the operator gives, per command: refused under any token,
 * whatever it holds. `thread resume --limit` raises a thread's limits; a
 * holder never raises its own (docs/threads.md, "Raising a limit").
 */
const OPERATOR_FLAGS: ReadonlyMap<string, readonly { flag: string; why: string }[]> = new Map([
  [
    'thread resume',
    [
      {
        flag: '--limit',
        why: "setting a thread's limits is the operator's, never a token holder's (a holder cannot raise its own)",
      },
    ],
  ],
]);

/** The commands a process held to a token may run at all. */
export const COMMANDS_UNDER_TOKEN: readonly string[] = [...UNDER_TOKEN.keys()];

/**
 * Refuse `command` (its words after `rye`) when the process holds a
 * `RYE_CAP_TOKEN` and the command is not one the token may drive, before the
 * command does anything. A token that does not verify refuses everything.
 *
 * @throws RyeError CAPABILITY_COMMAND_REFUSED, CAPABILITY_DENIED (a thread out
 *   of reach), CAPABILITY_TOKEN_INVALID
 */
export async function refuseUnderToken(
  io: CliIo,
  command: readonly string[],
  args: readonly string[],
  options: CommonOptions & { readonly sandbox?: boolean },
): Promise<void> {
  if (io.env['RYE_CAP_TOKEN'] === undefined) return;
  const name = command.join(' ');
  const rule = UNDER_TOKEN.get(name);
  if (rule === undefined)
    throw new RyeError(
      'CAPABILITY_COMMAND_REFUSED',
      `Cannot run \`rye ${name}\` in a process held to a RYE_CAP_TOKEN: under a token only ${COMMANDS_UNDER_TOKEN.map((c) => `\`rye ${c}\``).join(', ')} run`,
      { command: name },
    );
  if (options.sandbox === false)
    throw new RyeError(
      'CAPABILITY_COMMAND_REFUSED',
      `Cannot pass --no-sandbox to \`rye ${name}\` under a RYE_CAP_TOKEN: switching the sandbox off is the operator's, never a token holder's`,
      { command: name, flag: '--no-sandbox' },
    );
  for (const { flag, why } of OPERATOR_FLAGS.get(name) ?? [])
    if (flagGiven(options, flag))
      throw new RyeError(
        'CAPABILITY_COMMAND_REFUSED',
        `Cannot pass ${flag} to \`rye ${name}\` under a RYE_CAP_TOKEN: ${why}`,
        { command: name, flag },
      );
  if (rule === 'operation') return;
  const ctx = contextOf(options, io);
  const holder = (await commandAuthority(ctx, undefined)).holder;
  if (holder === undefined)
    throw new RyeError(
      'CAPABILITY_COMMAND_REFUSED',
      `Cannot run \`rye ${name}\` under this RYE_CAP_TOKEN: it names no holder`,
      { command: name },
    );
  if (rule === 'mint') {
    if (holder.kind !== 'ceiling')
      throw new RyeError(
        'CAPABILITY_COMMAND_REFUSED',
        `Cannot mint a token under a thread's RYE_CAP_TOKEN: a ceiling minted from it would outlive the thread and escape its budget`,
        { command: name },
      );
    return;
  }
  if (name === 'thread resume' && holder.kind === 'thread')
    throw new RyeError(
      'CAPABILITY_COMMAND_REFUSED',
      `Cannot resume a thread under a thread's RYE_CAP_TOKEN: only the thread itself starts turns in its tree`,
      { command: name },
    );
  refuseOutOfReach(ctx.spaces.project, holder, name, args);
}

/**
 * Refuse each thread id the holder does not reach: a ceiling reaches the
 * trees whose root it started; a thread its strict descendants.
 *
 * @throws RyeError CAPABILITY_DENIED
 */
function refuseOutOfReach(
  projectRoot: string,
  holder: TokenHolder,
  command: string,
  ids: readonly string[],
): void {
  const dbPath = registryDbPath(projectRoot);
  const registry = existsSync(dbPath) ? RegistryDb.open(dbPath) : undefined;
  try {
    for (const id of ids) {
      if (registry !== undefined && holderReaches(registry, holder, id)) continue;
      // The same answer whether the thread exists or not.
      throw new RyeError(
        'CAPABILITY_DENIED',
        `Cannot \`rye ${command}\` thread ${id.slice(0, 100)}: it is not one this RYE_CAP_TOKEN reaches (${holder.kind === 'ceiling' ? 'a ceiling reaches the trees it started' : 'a thread reaches its own descendants'})`,
        { command, holder: holder.kind },
      );
    }
  } finally {
    registry?.close();
  }
}

/** True when `holder` reaches thread `id`: a tree its ceiling started, or a strict descendant of its thread. */
export function holderReaches(registry: RegistryDb, holder: TokenHolder, id: string): boolean {
  const lineage = registry.lineageOf(id);
  if (lineage === undefined) return false;
  return holder.kind === 'ceiling'
    ? lineage.ceilingJti === holder.jti
    : lineage.ancestors.includes(holder.thread);
}
