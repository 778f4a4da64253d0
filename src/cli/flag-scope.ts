import { RyeError } from '../errors/index.js';

/**
 * An option whose meaning depends on what the command is doing: `rye execute`
 * takes `--plan` for a directive and `--params` for a tool. Commander knows
 * only that the command has the option; given where it does not apply it
 * would be ignored, and an ignored `--plan` or `--dry-run` runs the thing the
 * user asked only to see. Each command that has such options lists them here
 * and refuses them outside the modes they belong to, before doing anything.
 */
export interface ScopedFlag {
  /** As typed: `--plan`, `--no-sandbox`. */
  readonly flag: string;
  /** The modes it applies to. */
  readonly modes: readonly string[];
  /** Per mode it does not apply to: what to use there instead. */
  readonly instead?: Readonly<Record<string, string>>;
}

/** A pair of options that cannot be given together, whatever the mode. */
export interface FlagConflict {
  readonly flags: readonly [string, string];
  readonly why: string;
}

/**
 * commander's key for an option: `--params-file` → `paramsFile`, `--no-sandbox` →
 * `sandbox`. fast-path.ts has its own (without `--no-`): importing one from the
 * other would make the CLI bundle's main body export to a chunk, which a
 * function body cannot (scripts/cli-cached-bodies.mjs).
 */
export function optionKey(flag: string): string {
  return flag
    .replace(/^--(no-)?/, '')
    .replace(/-([a-z])/g, (_: string, c: string) => c.toUpperCase());
}

/** True when the command line gave `flag` (a list option: at least once; `--no-x`: x is false). */
export function flagGiven(options: object, flag: string): boolean {
  const value = (options as Readonly<Record<string, unknown>>)[optionKey(flag)];
  if (flag.startsWith('--no-')) return value === false;
  if (Array.isArray(value)) return value.length > 0;
  return value !== undefined && value !== false;
}

/**
 * Refuse the first option given outside its modes, and the first conflicting
 * pair, naming the option, where it applies and what to use instead.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT
 */
export function refuseFlagsOutside(
  command: string,
  mode: string,
  options: object,
  scoped: readonly ScopedFlag[],
  conflicts: readonly FlagConflict[] = [],
): void {
  for (const rule of scoped) {
    if (rule.modes.includes(mode) || !flagGiven(options, rule.flag)) continue;
    const instead = rule.instead?.[mode];
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `${rule.flag} does not apply to \`${command} ${mode}\` (only to ${rule.modes.map((m) => `\`${command} ${m}\``).join(' and ')})${instead === undefined ? '' : `; here, ${instead}`}. Nothing was run.`,
      {
        flag: rule.flag,
        command: `${command} ${mode}`,
        applies_to: [...rule.modes],
        ...(instead === undefined ? {} : { instead }),
      },
    );
  }
  for (const { flags, why } of conflicts) {
    if (!flags.every((flag) => flagGiven(options, flag))) continue;
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `${flags[0]} and ${flags[1]} cannot be given together: ${why}. Nothing was run.`,
      { flags: [...flags], command: `${command} ${mode}` },
    );
  }
}

/**
 * Refuse `flag` given without `required`, which it modifies (`--host` without
 * `--http`): ignored, it would do something other than what was asked.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT
 */
export function refuseWithout(
  command: string,
  options: object,
  flag: string,
  required: string,
): void {
  if (!flagGiven(options, flag) || flagGiven(options, required)) return;
  throw new RyeError(
    'USAGE_INVALID_ARGUMENT',
    `${flag} applies only with ${required} (\`${command}\`). Nothing was run.`,
    { flag, requires: required, command },
  );
}
