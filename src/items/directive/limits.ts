/**
 * `<limits>`: the seed's `max_*` attributes and the short names of THREADS.md
 * §5, checked value by value. Integers are canonical decimal (no sign, no
 * fraction, no leading zero); `spend` is a decimal USD string kept as written;
 * `0` means unlimited. Pure.
 */
import type { XmlElement } from '../metadata/safe-xml.js';
import { LIMIT_MAXIMA, SPEND_MAX_USD, limitAlias, limitNameOf, type LimitName } from './grammar.js';
import { attrPath, checkChildren, checkNoText, shown, type Issues } from './issues.js';
import type { DirectiveLimits } from './types.js';

const INTEGER_RE = /^(?:0|[1-9][0-9]{0,15})$/;
const SPEND_RE = /^\d+(\.\d{1,9})?$/;
const NANOS_PER_USD = 1_000_000_000n;

/** A limit value parsed from text: an integer, or the spend string. */
export type LimitValue = number | string;

/** Parse one limit value. Returns the value or a problem. Pure. */
export function parseLimitValue(
  name: LimitName,
  raw: string,
): { value: LimitValue } | { problem: string } {
  if (name === 'spend') {
    if (raw.length > 32 || !SPEND_RE.test(raw)) {
      return {
        problem: `must be a decimal USD amount like "1.50" (up to 9 decimals), got "${shown(raw)}"`,
      };
    }
    if (spendNanos(raw) > BigInt(SPEND_MAX_USD) * NANOS_PER_USD) {
      return {
        problem: `must be at most ${SPEND_MAX_USD} USD (0 = unlimited), got "${shown(raw)}"`,
      };
    }
    return { value: raw };
  }
  const max = LIMIT_MAXIMA[name];
  if (!INTEGER_RE.test(raw)) {
    return {
      problem: `must be a whole number from 0 to ${max} (0 = unlimited), got "${shown(raw)}"`,
    };
  }
  const value = Number(raw);
  if (value > max) {
    return { problem: `must be at most ${max} (0 = unlimited), got ${raw}` };
  }
  return { value };
}

/** A checked spend string in nano-USD (exact). */
export function spendNanos(spend: string): bigint {
  const [whole = '0', fraction = ''] = spend.split('.');
  return BigInt(whole) * NANOS_PER_USD + BigInt(fraction.padEnd(9, '0'));
}

/** Read `<limits>`: every attribute must name a limit, once, with a valid value. */
export function readLimits(el: XmlElement, path: string, issues: Issues): DirectiveLimits {
  checkChildren(el, path, {}, issues);
  checkNoText(el, path, issues);
  const limits: Partial<Record<LimitName, LimitValue>> = {};
  const spelledAs = new Map<LimitName, string>();
  for (const [key, raw] of Object.entries(el.attributes)) {
    const at = attrPath(path, shown(key));
    const name = limitNameOf(key);
    if (name === undefined) {
      const known =
        'turns, tokens, spend, spawns, depth, duration_seconds, tool_calls (or max_<name>)';
      issues.add(at, `unknown limit "${shown(key)}" (known: ${known})`);
      continue;
    }
    const earlier = spelledAs.get(name);
    if (earlier !== undefined) {
      issues.add(at, `limit ${name} is already set by ${earlier}`);
      continue;
    }
    spelledAs.set(name, key === name ? name : limitAlias(name));
    const parsed = parseLimitValue(name, raw);
    if ('problem' in parsed) issues.add(at, parsed.problem);
    else limits[name] = parsed.value;
  }
  return limits as DirectiveLimits;
}
