/**
 * Thread limits (THREADS.md §5): finite defaults, the directive's declared
 * limits, the operator's `--limit k=v` overrides, and the clamp of a child to
 * its parent. `0` (any zero amount for spend) means unlimited. Pure.
 */
import { RyeError } from '../../errors/index.js';
import {
  LIMIT_NAMES,
  limitNameOf,
  parseLimitValue,
  spendNanos,
  type DirectiveLimits,
  type LimitName,
  type LimitValue,
  type ValidationIssue,
} from '../../items/index.js';

/** Every limit resolved: integers, and `spend` as a decimal USD string. */
export interface ResolvedLimits {
  readonly turns: number;
  readonly tokens: number;
  readonly spend: string;
  readonly spawns: number;
  readonly depth: number;
  readonly duration_seconds: number;
  readonly tool_calls: number;
}

/** THREADS.md §5 defaults: finite, because threads run unattended. */
export const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  turns: 25,
  tokens: 200_000,
  spend: '1.00',
  spawns: 10,
  depth: 5,
  duration_seconds: 1800,
  tool_calls: 200,
});

/** True when a limit value means "no limit". */
export function isUnlimited(value: LimitValue): boolean {
  return typeof value === 'string' ? spendNanos(value) === 0n : value === 0;
}

/**
 * Parse the operator's `--limit k=v` arguments (`k` a short name or its
 * `max_` alias; values as in `<limits>`), listing every problem at once.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT with `details.issues`.
 */
export function parseLimitOverrides(args: readonly string[]): DirectiveLimits {
  const issues: ValidationIssue[] = [];
  const out: Partial<Record<LimitName, LimitValue>> = {};
  for (const arg of args) {
    const field = `--limit ${arg.length > 64 ? `${arg.slice(0, 64)}…` : arg}`;
    const eq = arg.indexOf('=');
    if (eq <= 0) {
      issues.push({ field, message: 'must be k=v, e.g. turns=40 or spend=2.50' });
      continue;
    }
    const key = arg.slice(0, eq);
    const name = limitNameOf(key);
    if (name === undefined) {
      issues.push({ field, message: `unknown limit (known: ${LIMIT_NAMES.join(', ')})` });
    } else if (Object.hasOwn(out, name)) {
      issues.push({ field, message: `limit ${name} is given twice` });
    } else {
      const parsed = parseLimitValue(name, arg.slice(eq + 1));
      if ('problem' in parsed) issues.push({ field, message: `${name} ${parsed.problem}` });
      else out[name] = parsed.value;
    }
  }
  if (issues.length > 0) {
    const list = issues.map((i) => `${i.field}: ${i.message}`).join('; ');
    throw new RyeError('USAGE_INVALID_ARGUMENT', `Cannot use these limits: ${list}`, { issues });
  }
  return out as DirectiveLimits;
}

/**
 * Defaults, then the directive's limits, narrowed by `narrowing` (`--limit`
 * from the CLI, a ceiling holder or a resumed thread's record): per limit the
 * smaller, so an override lowers a limit and never lifts it. A larger value,
 * or `0` (unlimited), leaves the directive's; only the directive sets `0`.
 */
export function resolveLimits(
  declared: DirectiveLimits,
  narrowing: DirectiveLimits = {},
): ResolvedLimits {
  const pick = <K extends LimitName>(from: DirectiveLimits, name: K, fallback: LimitValue) =>
    (from[name] ?? fallback) as ResolvedLimits[K];
  const of = (
    from: DirectiveLimits,
    fallback: (name: LimitName) => LimitValue,
  ): ResolvedLimits => ({
    turns: pick(from, 'turns', fallback('turns')),
    tokens: pick(from, 'tokens', fallback('tokens')),
    spend: pick(from, 'spend', fallback('spend')),
    spawns: pick(from, 'spawns', fallback('spawns')),
    depth: pick(from, 'depth', fallback('depth')),
    duration_seconds: pick(from, 'duration_seconds', fallback('duration_seconds')),
    tool_calls: pick(from, 'tool_calls', fallback('tool_calls')),
  });
  const base = of(declared, (name) => DEFAULT_LIMITS[name]);
  // What the narrowing leaves out narrows nothing: unlimited.
  return clampLimits(
    of(narrowing, (name) => (name === 'spend' ? '0' : 0)),
    base,
  );
}

/**
 * A child's limits under its parent's: per limit, the other side when one is
 * unlimited, else the smaller. Never wider than either side.
 */
export function clampLimits(child: ResolvedLimits, parent: ResolvedLimits): ResolvedLimits {
  const pick = <T extends LimitValue>(a: T, b: T): T => {
    if (isUnlimited(a)) return b;
    if (isUnlimited(b)) return a;
    if (typeof a === 'string') return spendNanos(a) <= spendNanos(b as string) ? a : b;
    return a <= b ? a : b;
  };
  return {
    turns: pick(child.turns, parent.turns),
    tokens: pick(child.tokens, parent.tokens),
    spend: pick(child.spend, parent.spend),
    spawns: pick(child.spawns, parent.spawns),
    depth: pick(child.depth, parent.depth),
    duration_seconds: pick(child.duration_seconds, parent.duration_seconds),
    tool_calls: pick(child.tool_calls, parent.tool_calls),
  };
}

/**
 * The operator's `rye thread resume --limit k=v`: each named limit replaced,
 * higher or lower (`0` unlimited), the others kept. Unlike {@link resolveLimits}
 * this lifts a limit, so only the operator's own signed `limits_set` event
 * carries its result into a later resume. Pure.
 */
export function setLimits(current: ResolvedLimits, set: DirectiveLimits): ResolvedLimits {
  return { ...current, ...set } as ResolvedLimits;
}
