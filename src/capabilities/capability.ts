import { RyeError } from '../errors/index.js';
import { ITEM_TYPES, type ItemType } from '../items/index.js';
import { printable } from '../platform/index.js';
import { patternProblem, type Pattern } from './pattern.js';

/** The four operations a capability can grant. */
export const CAP_VERBS = ['execute', 'search', 'load', 'sign'] as const;
export type CapVerb = (typeof CAP_VERBS)[number];

/** One grant: an operation on the items of one type whose ids match `pattern`. */
export interface Capability {
  readonly verb: CapVerb;
  readonly type: ItemType;
  readonly pattern: Pattern;
}

/** The string form's first segment: `rye.<verb>.<type>.<pattern>`. */
export const CAPABILITY_PREFIX = 'rye.';

/** Longest capability string accepted (an id is at most 512 characters). */
const MAX_CAPABILITY_LENGTH = 600;

/** True when `value` is one of the four verbs. */
export function isCapVerb(value: string): value is CapVerb {
  return (CAP_VERBS as readonly string[]).includes(value);
}

/** True when `value` is an item type usable in a capability. */
export function isCapType(value: string): value is ItemType {
  return (ITEM_TYPES as readonly string[]).includes(value);
}

/**
 * Parse `rye.<verb>.<type>.<pattern>`, split at the first three dots; the
 * pattern keeps its `/` and, since ids hold no dot, holds no dot either.
 *
 * @throws RyeError CAPABILITY_INVALID naming the string and why.
 */
export function parseCapability(text: string): Capability {
  const parsed = tryCapability(text);
  if (typeof parsed !== 'string') return parsed;
  throw capabilityInvalid(text, parsed);
}

/** Like {@link parseCapability}, but `undefined` instead of throwing. */
export function tryParseCapability(text: string): Capability | undefined {
  const parsed = tryCapability(text);
  return typeof parsed === 'string' ? undefined : parsed;
}

/** Why `text` is not a capability string, or undefined when it is one. Pure. */
export function capabilityProblem(text: string): string | undefined {
  const parsed = tryCapability(text);
  return typeof parsed === 'string' ? parsed : undefined;
}

/**
 * Check a structured capability (verb, type and pattern given apart).
 * @throws RyeError CAPABILITY_INVALID
 */
export function makeCapability(verb: string, type: string, pattern: string): Capability {
  const text = `${CAPABILITY_PREFIX}${verb}.${type}.${pattern}`;
  const why = structuredProblem(verb, type, pattern);
  if (why !== undefined) throw capabilityInvalid(text, why);
  return { verb: verb as CapVerb, type: type as ItemType, pattern };
}

/** The string form `rye.<verb>.<type>.<pattern>`. Pure. */
export function formatCapability(cap: Capability): string {
  return `${CAPABILITY_PREFIX}${cap.verb}.${cap.type}.${cap.pattern}`;
}

/** A CAPABILITY_INVALID error in the house form, the string shown printable. */
export function capabilityInvalid(text: string, why: string): RyeError {
  const shown = printable(text);
  return new RyeError('CAPABILITY_INVALID', `Cannot use capability "${shown}": ${why}`, {
    capability: shown,
    reason: why,
  });
}

function tryCapability(text: string): Capability | string {
  if (text.length > MAX_CAPABILITY_LENGTH)
    return `it is longer than ${MAX_CAPABILITY_LENGTH} characters`;
  if (!text.startsWith(CAPABILITY_PREFIX))
    return `it does not start with "${CAPABILITY_PREFIX}" (expected rye.<verb>.<type>.<pattern>)`;
  const verbEnd = text.indexOf('.', CAPABILITY_PREFIX.length);
  const typeEnd = verbEnd === -1 ? -1 : text.indexOf('.', verbEnd + 1);
  if (typeEnd === -1) return 'expected rye.<verb>.<type>.<pattern>';
  const verb = text.slice(CAPABILITY_PREFIX.length, verbEnd);
  const type = text.slice(verbEnd + 1, typeEnd);
  const pattern = text.slice(typeEnd + 1);
  const why = structuredProblem(verb, type, pattern);
  if (why !== undefined) return why;
  return { verb: verb as CapVerb, type: type as ItemType, pattern };
}

function structuredProblem(verb: string, type: string, pattern: string): string | undefined {
  if (!isCapVerb(verb))
    return `unknown verb "${printable(verb)}" (expected ${CAP_VERBS.join(', ')})`;
  if (!isCapType(type))
    return `unknown item type "${printable(type)}" (expected ${ITEM_TYPES.join(', ')})`;
  return patternProblem(pattern);
}
