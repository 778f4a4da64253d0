/** What a redacted token reads as: the prefix kept, so the reader knows what was there. */
export const REDACTED_TOKEN = 'rye-cap-v1.[redacted]';

const TOKEN_RE = /rye-cap-v1\.[A-Za-z0-9_-]+/g;

/**
 * Replace every capability token in `text` with {@link REDACTED_TOKEN}. Apply
 * it to anything written or shown (output, errors, logs, transcripts): a token
 * is a bearer secret. Idempotent; pure.
 */
export function redactTokens(text: string): string {
  return text.includes('rye-cap-v1.') ? text.replace(TOKEN_RE, REDACTED_TOKEN) : text;
}
