/**
 * Secrets never reach a transcript, a record or a log (THREADS.md §4): the
 * one redaction of src/platform/secrets.ts, under the names the thread code
 * uses. Serialized JSON stays valid: the secrets' replacements hold no quote
 * or backslash.
 */
export {
  REDACTED_TOKEN,
  TOKEN_PATTERN,
  redactSecrets as redactJson,
  redactSecrets as redactTokens,
} from '../../platform/index.js';
