import type { Command, Option } from 'commander';
import type { CliIo } from '../../src/cli/context.js';
import { COMMANDS } from '../../src/cli/main.js';

/** One runnable command of the CLI (a command without subcommands). */
export interface CommandLeaf {
  /** Its words after `rye`. */
  readonly path: readonly string[];
  /** A value each argument accepts (its first choice, when it has choices). */
  readonly args: readonly string[];
  readonly options: readonly Option[];
}

/** Every runnable command of the CLI, from the commander definitions themselves. */
export async function commandLeaves(): Promise<CommandLeaf[]> {
  const io = { stdout: () => {}, stderr: () => {}, env: {}, cwd: '/' } as CliIo;
  const found: CommandLeaf[] = [];
  const walk = (command: Command, path: readonly string[]) => {
    const here = [...path, command.name()];
    if (command.commands.length === 0)
      found.push({
        path: here,
        args: command.registeredArguments.map((a) => a.argChoices?.[0] ?? 'x'),
        options: command.options,
      });
    for (const sub of command.commands) walk(sub, here);
  };
  for (const entry of COMMANDS)
    walk(
      (await entry.load())(io, async () => {}),
      [],
    );
  return found;
}
