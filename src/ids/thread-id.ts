import { RyeError } from '../errors/index.js';
import type { Clock, RandomSource } from './clock.js';
import { systemClock, systemRandom } from './clock.js';
import {
  decodeCrockfordInteger,
  encodeCrockfordBits,
  encodeCrockfordInteger,
} from './crockford.js';

/** A thread id that passed {@link parseThreadId}: safe as one path segment. */
export type ThreadId = string & { readonly __threadId: unique symbol };

/** The whole grammar of a thread id (THREADS.md §8). */
export const THREAD_ID_PATTERN = /^[a-z0-9_]{1,40}-[0-9a-hjkmnp-tv-z]{26}$/;

const MAX_LEAF = 40;
const TIME_DIGITS = 10;
const RANDOM_DIGITS = 16;
/** 10 base32 digits hold 50 bits; ms since 1970 need 41 until the year 2039 and 48 until 10889. */
const MAX_TIME = 32 ** TIME_DIGITS - 1;

/**
 * The leaf of a directive id: its last `/` segment, lowercased, each character
 * outside `[a-z0-9_]` (per code point) turned to `_`, at most 40 characters.
 * Pure. An empty result (an id ending in `/`) becomes `thread`.
 */
export function threadLeaf(directiveId: string): string {
  const segment = directiveId.slice(directiveId.lastIndexOf('/') + 1).toLowerCase();
  const leaf = Array.from(segment, (ch) => (/^[a-z0-9_]$/.test(ch) ? ch : '_'))
    .slice(0, MAX_LEAF)
    .join('');
  return leaf === '' ? 'thread' : leaf;
}

/**
 * A new thread id: `<leaf>-<26 chars>`, the suffix being Crockford base32 of
 * the clock's milliseconds (10 digits) then 80 random bits (16 digits), so ids
 * sort by creation time within a leaf and never collide in practice.
 *
 * @throws RyeError THREAD_ID_INVALID when the clock reads outside 0..32^10−1.
 */
export function newThreadId(
  directiveId: string,
  clock: Clock = systemClock,
  random: RandomSource = systemRandom,
): ThreadId {
  const ms = clock.now();
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_TIME) {
    throw new RyeError('THREAD_ID_INVALID', `Cannot make a thread id: the clock reads ${ms}`, {
      ms,
    });
  }
  const suffix =
    encodeCrockfordInteger(ms, TIME_DIGITS) + encodeCrockfordBits(random(10), RANDOM_DIGITS);
  return parseThreadId(`${threadLeaf(directiveId)}-${suffix}`);
}

/**
 * Check a thread id from outside (CLI argument, tool parameter, file name)
 * against the full grammar before it is ever joined to a path.
 *
 * @throws RyeError THREAD_ID_INVALID
 */
export function parseThreadId(value: unknown): ThreadId {
  const id = tryParseThreadId(value);
  if (id !== undefined) return id;
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value;
  throw new RyeError(
    'THREAD_ID_INVALID',
    `Cannot use thread id ${shown}: expected <leaf>-<26 base32 chars>`,
    { value: typeof value === 'string' ? value.slice(0, 200) : null },
  );
}

/** {@link parseThreadId} returning `undefined` instead of throwing. */
export function tryParseThreadId(value: unknown): ThreadId | undefined {
  if (typeof value !== 'string' || value.length > MAX_LEAF + 27) return undefined;
  return THREAD_ID_PATTERN.test(value) ? (value as ThreadId) : undefined;
}

/** The creation time (ms) encoded in a valid thread id. Pure. */
export function threadIdMillis(id: ThreadId): number {
  const suffix = id.slice(id.length - TIME_DIGITS - RANDOM_DIGITS, id.length - RANDOM_DIGITS);
  return decodeCrockfordInteger(suffix);
}
