import type { CliIo } from './context.js';

/**
 * The command lines an agent sends most (`rye verify-file`, `rye verify`,
 * `rye execute tool`) and `rye bundle verify` (whose goal is to keep up with
 * `sha256sum -c`) run without the argument parser: loading and setting up
 * commander costs about as much CPU as the whole verification does. The fast
 * path takes a command line only when its shape is recognised exactly (known
 * long options spelled out in full, a value after each option that takes one,
 * the exact number of arguments) and leaves everything else to commander,
 * which stays the one source of help, usage text and usage errors: any
 * `--help`, unknown or misspelled option, missing or extra argument, missing
 * required option or option value that looks like an option falls back.
 * test/cli/fast-path.test.ts runs a large set of command lines through both
 * and requires the same exit code, stdout and stderr, and checks that every
 * option here is declared the same way in the command's commander definition.
 */
export interface FastCommand {
  /** The top-level command: argv[0], exactly. */
  readonly name: string;
  /**
   * When set, a subcommand of `name` (`bundle verify`): argv[1], exactly.
   * The arguments and options are read after it (commander reads options
   * before it as the parent command's, and `bundle` has none).
   */
  readonly subcommand?: string;
  /** How many arguments it takes, all required (after the subcommand). */
  readonly argumentCount: number;
  /** When set, the first argument must be this word (`execute tool`, not `execute directive`). */
  readonly firstArgument?: string;
  /** Options that take no value. */
  readonly flags: readonly string[];
  /** Options that take one value; given twice, the last one counts (as in commander). */
  readonly values: readonly string[];
  /** Options that take one value and may be repeated (commander's collect into a list). */
  readonly lists: readonly string[];
  /** Options that must be given (commander's requiredOption). */
  readonly required: readonly string[];
  /**
   * The runner of the command's body (the function its commander action
   * runs): `fast/<runner>.ts`, exporting `run`. In the CLI bundle each is a
   * file of its own, built without the other commands' chunks
   * (scripts/build-cli.mjs), which the entry (entry.ts) loads directly and
   * `main` through fast-runners.ts.
   */
  readonly runner: FastRunnerName;
}

/** The fast runners, `fast/<name>.ts` each. */
export type FastRunnerName = 'verify-file' | 'verify' | 'execute' | 'bundle-verify';

/**
 * Runs a command's body with its errors reported as the commander path
 * reports them; the exit code. Independent of how the runner was loaded.
 */
export type FastRunner = (
  io: CliIo,
  args: readonly string[],
  options: Record<string, unknown>,
) => Promise<number>;

/** The commands with a fast path (at most one per name and subcommand). */
export const FAST_COMMANDS: readonly FastCommand[] = [
  {
    name: 'verify-file',
    argumentCount: 1,
    flags: ['--json'],
    values: ['--project', '--item-type', '--item-id'],
    lists: ['--trust'],
    required: ['--item-type'],
    runner: 'verify-file',
  },
  {
    name: 'verify',
    argumentCount: 2,
    flags: ['--json', '--require-full-coverage'],
    values: ['--project'],
    lists: [],
    required: [],
    runner: 'verify',
  },
  {
    name: 'execute',
    argumentCount: 2,
    firstArgument: 'tool',
    // --no-sandbox is commander's negated option: it goes the commander way.
    flags: ['--json', '--dry-run', '--frozen', '--explain-sandbox'],
    values: ['--project', '--params', '--params-file', '--caps'],
    // A directive's options (--inputs, --plan, --spawn, --limit) are left to commander.
    lists: [],
    required: [],
    runner: 'execute',
  },
  {
    name: 'bundle',
    subcommand: 'verify',
    argumentCount: 1,
    flags: ['--json'],
    values: ['--project'],
    lists: [],
    required: [],
    runner: 'bundle-verify',
  },
];

/** A recognised command line: the command, its arguments and its options as commander names them. */
export interface FastParse {
  readonly command: FastCommand;
  readonly args: readonly string[];
  readonly options: Record<string, unknown>;
}

/** `--item-type` → `itemType`, the key commander stores the option under. */
function optionKey(long: string): string {
  return long.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * The fast-path reading of `argv`, or undefined when its shape is not one the
 * fast path is sure of (commander then parses it). Commander's rules kept:
 * options and arguments in any order, `--opt value` or `--opt=value`, a
 * repeated single-value option keeps its last value, a lone `-` is an
 * argument. Stricter than commander: no `--`, and a separate option value
 * that starts with `-` falls back.
 */
export function parseFastArgv(argv: readonly string[]): FastParse | undefined {
  const command = FAST_COMMANDS.find(
    (c) => c.name === argv[0] && (c.subcommand === undefined || c.subcommand === argv[1]),
  );
  if (command === undefined) return undefined;
  const args: string[] = [];
  const options: Record<string, unknown> = {};
  for (const list of command.lists) options[optionKey(list)] = [];
  for (let i = command.subcommand === undefined ? 1 : 2; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg.length < 2 || !arg.startsWith('-')) {
      args.push(arg);
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') return undefined;
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (command.flags.includes(name)) {
      if (eq >= 0) return undefined;
      options[optionKey(name)] = true;
      continue;
    }
    const isList = command.lists.includes(name);
    if (!isList && !command.values.includes(name)) return undefined;
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      i += 1;
      value = argv[i];
      if (value === undefined || value.startsWith('-')) return undefined;
    }
    const key = optionKey(name);
    options[key] = isList ? [...(options[key] as string[]), value] : value;
  }
  if (args.length !== command.argumentCount) return undefined;
  if (command.firstArgument !== undefined && args[0] !== command.firstArgument) return undefined;
  if (command.required.some((r) => options[optionKey(r)] === undefined)) return undefined;
  return { command, args, options };
}
