export { outcomeOf, readThreadOutcome, terminalEventOf } from './thread-outcome.js';
export type { ThreadOutcome } from './thread-outcome.js';
