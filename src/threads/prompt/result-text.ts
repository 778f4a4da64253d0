import { redactTokens } from '../../capabilities/index.js';

/** The most of one tool result the model sees, in UTF-8 bytes (THREADS.md §9 "size"). */
export const MAX_RESULT_CHARS = 100 * 1024;

/**
 * The JSON text a tool result goes back to the model as: capability tokens
 * redacted, then capped to 100 KiB as head and tail with `truncated: true`.
 * Pure.
 */
export function resultText(value: unknown): { text: string; bytes: number; truncated: boolean } {
  const text = redactTokens(JSON.stringify(value) ?? 'null');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= MAX_RESULT_CHARS) return { text, bytes, truncated: false };
  // Quoting again can double or more what is quoted: shrink until the whole fits.
  let half = Math.floor(MAX_RESULT_CHARS / 4);
  for (;;) {
    const capped = JSON.stringify({
      truncated: true,
      bytes,
      head: text.slice(0, half),
      tail: text.slice(text.length - half),
    });
    if (Buffer.byteLength(capped, 'utf8') <= MAX_RESULT_CHARS)
      return { text: capped, bytes, truncated: true };
    half = Math.floor(half * 0.75);
  }
}
