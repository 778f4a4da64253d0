import type { ItemType } from './signature-formats.js';

/** Which part of a directive a signature covers. */
export type Coverage = 'full' | 'xml-only';

/**
 * The text a tool's hash covers: the body (signature line already removed)
 * minus a leading `#!` shebang line. Runtimes never honour the shebang, so it
 * stays outside the hash (Python-compatible).
 */
export function toolHashedText(body: string): string {
  if (!body.startsWith('#!')) return body;
  const newline = body.indexOf('\n');
  return newline === -1 ? body : body.slice(newline + 1);
}

/**
 * The legacy directive span hashed by the Python implementation: from the first
 * `<directive…>` start tag to the end of the last `</directive>`, or undefined.
 */
export function directiveSpan(text: string): string | undefined {
  const start = /<directive[^>]*>/.exec(text);
  if (start === null) return undefined;
  const endTag = '</directive>';
  const end = text.lastIndexOf(endTag);
  if (end === -1 || end < start.index) return undefined;
  return text.slice(start.index, end + endTag.length).trim();
}

/** The text hashed when signing (this project always signs with full coverage). */
export function signedTextFor(itemType: ItemType, body: string): string {
  return itemType === 'tool' ? toolHashedText(body) : body;
}
