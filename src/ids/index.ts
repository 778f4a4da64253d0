export { fixedClock, systemClock, systemRandom } from './clock.js';
export type { Clock, RandomSource } from './clock.js';
export {
  CROCKFORD_ALPHABET,
  decodeCrockfordInteger,
  encodeCrockfordBits,
  encodeCrockfordInteger,
} from './crockford.js';
export {
  THREAD_ID_PATTERN,
  newThreadId,
  parseThreadId,
  threadIdMillis,
  threadLeaf,
  tryParseThreadId,
} from './thread-id.js';
export type { ThreadId } from './thread-id.js';
