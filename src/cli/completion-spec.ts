/**
 * What shell completion knows about `rye`, read from the commander tree the
 * CLI runs with, so a completion script can never fall behind the commands.
 */
import type { Command, Option } from 'commander';
import { ITEM_TYPES, SPACE_NAMES } from '../items/index.js';

/** What a value (of an option or a positional argument) completes to. */
export type ValueHint = 'none' | 'file' | 'any' | readonly string[];

export interface OptionSpec {
  /** `-V`, `--version`: at most one short and one long flag. */
  readonly short: string | null;
  readonly long: string | null;
  readonly description: string;
  /** `none`: a switch; otherwise the option takes a value completing like this. */
  readonly value: ValueHint;
}

export interface CommandSpec {
  /** The command words after `rye`, each with a leading space: `''`, `' keys'`, `' keys generate'`. */
  readonly path: string;
  readonly subcommands: readonly { readonly name: string; readonly description: string }[];
  readonly options: readonly OptionSpec[];
  /** Positional arguments in order, each with its hint. */
  readonly args: readonly ValueHint[];
}

/** The shells `rye completion` writes for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

// Names commander does not type: an option's or argument's meaning by its name.
const OPTION_HINTS: Readonly<Record<string, ValueHint>> = {
  '--space': SPACE_NAMES,
  '--project': 'file',
  '--params-file': 'file',
  '--data': 'file',
  '--trust': 'file',
  '--include': 'file',
};
const ARG_HINTS: Readonly<Record<string, ValueHint>> = {
  type: ITEM_TYPES,
  item_type: ITEM_TYPES,
  shell: COMPLETION_SHELLS,
  file: 'file',
  path: 'file',
};

const HELP: OptionSpec = {
  short: '-h',
  long: '--help',
  description: 'display help for command',
  value: 'none',
};

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const FLAG = /^--?[A-Za-z0-9][A-Za-z0-9-]*$/;
const WORD = /^[A-Za-z0-9._/-]+$/;

/**
 * Every command of the tree, root first, depth-first in declaration order.
 * Names or flags that are not plain words are left out (they never reach a
 * script). Pure.
 */
export function completionSpec(root: Command): CommandSpec[] {
  const out: CommandSpec[] = [];
  const visit = (command: Command, path: string): void => {
    const subs = command.commands.filter((c) => NAME.test(c.name()));
    out.push({
      path,
      subcommands: subs.map((c) => ({ name: c.name(), description: c.description() })),
      options: [...command.options.filter((o) => !o.hidden).map(optionSpec), HELP].filter(
        (o) => (o.short ?? o.long) !== null,
      ),
      args: command.registeredArguments.map((a) =>
        hint(a.argChoices, ARG_HINTS[a.name()] ?? 'any'),
      ),
    });
    for (const sub of subs) visit(sub, `${path} ${sub.name()}`);
  };
  visit(root, '');
  return out;
}

function optionSpec(option: Option): OptionSpec {
  const takesValue = option.required || option.optional;
  const long = option.long !== undefined && FLAG.test(option.long) ? option.long : null;
  return {
    short: option.short !== undefined && FLAG.test(option.short) ? option.short : null,
    long,
    description: option.description,
    value: takesValue
      ? hint(option.argChoices, (long === null ? undefined : OPTION_HINTS[long]) ?? 'any')
      : 'none',
  };
}

function hint(choices: readonly string[] | undefined, fallback: ValueHint): ValueHint {
  const words = (choices ?? []).filter((c) => WORD.test(c));
  return words.length > 0 ? words : fallback;
}
