import type { Message } from '../conversation/index.js';

/** Characters per token of the window estimate (THREADS.md §12). */
export const CHARS_PER_TOKEN = 4;

// Messages are immutable once pushed: each is measured once, so a turn costs
// what is new, not the whole conversation again.
const measured = new WeakMap<Message, number>();

function charsOf(message: Message): number {
  const known = measured.get(message);
  if (known !== undefined) return known;
  let chars = 0;
  for (const part of message.content) {
    if (part.type === 'text') chars += part.text.length;
    else if (part.type === 'tool_result') chars += part.content.length;
    else chars += part.name.length + (JSON.stringify(part.input) ?? '').length;
  }
  measured.set(message, chars);
  return chars;
}

/**
 * The live window in estimated tokens: the characters of the system prompt
 * and of every message the next request carries, divided by 4. It is
 * measured on what would be sent, never on cumulative usage, so it falls
 * after a compaction instead of latching (THREADS.md §12). Pure.
 */
export function windowTokens(system: string, messages: readonly Message[]): number {
  let chars = system.length;
  for (const message of messages) chars += charsOf(message);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
