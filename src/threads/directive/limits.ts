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
 * Defaults, then the directive's limits, then the operator's overrides: the
 * last one written wins, so only a directive or the operator sets `0`.
 */
export function resolveLimits(
  declared: DirectiveLimits,
  overrides: DirectiveLimits = {},
): ResolvedLimits {
  const pick = <K extends LimitName>(name: K): ResolvedLimits[K] =>
    (overrides[name] ?? declared[name] ?? DEFAULT_LIMITS[name]) as ResolvedLimits[K];
  return {
    turns: pick('turns'),
    tokens: pick('tokens'),
    spend: pick('spend'),
    spawns: pick('spawns'),
    depth: pick('depth'),
    duration_seconds: pick('duration_seconds'),
    tool_calls: pick('tool_calls'),
  };
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
