/**
 * Capability tokens never reach a transcript, a record or a log: any
 * `rye-cap-v1.` followed by token characters is replaced (THREADS.md §4).
 * The replacement's `[` is outside the token alphabet, so redacting twice
 * changes nothing.
 */
export const TOKEN_PATTERN = /rye-cap-v1\.[A-Za-z0-9_-]+/g;
export const REDACTED_TOKEN = 'rye-cap-v1.[redacted]';
const MARKER = 'rye-cap-v1.';

/** `text` with every capability token replaced. Pure. */
export function redactTokens(text: string): string {
  return text.includes(MARKER) ? text.replace(TOKEN_PATTERN, REDACTED_TOKEN) : text;
}

/**
 * Redact serialized JSON. The token alphabet holds no character JSON
 * escapes, so a token in any string (or key) appears literally in the text,
 * and the replacement holds no quote or backslash, so the JSON stays valid.
 * Pure.
 */
export function redactJson(json: string): string {
  return redactTokens(json);
}
