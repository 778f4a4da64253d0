import type { SignatureFormat } from './signature-formats.js';
import {
  SIGNATURE_MARKER,
  tryParseSignaturePayload,
  type SignatureFields,
} from './signature-line.js';

type CommentFormat = Extract<SignatureFormat, { kind: 'comment' }>;

/** Where the signature line of a comment-signed text is, and what it says. */
export type CommentSignatureLocation =
  | {
      readonly status: 'signed';
      readonly fields: SignatureFields;
      /** The text with the signature line removed (shebang, if any, kept in place). */
      readonly body: string;
      /** Another well-formed signature line elsewhere: 1-based line number, or null. */
      readonly duplicateLine: number | null;
    }
  | { readonly status: 'malformed'; readonly line: number; readonly body: string }
  | {
      readonly status: 'unsigned';
      /** A well-formed signature line in a place where it does not count, or null. */
      readonly misplacedLine: number | null;
    };

/**
 * Find the signature line of a newline-normalised text in the position its
 * format fixes. Pure; never throws.
 */
export function locateCommentSignature(
  text: string,
  format: CommentFormat,
): CommentSignatureLocation {
  const start = signatureLineStart(text, format);
  const end = text.indexOf('\n', start);
  const lineEnd = end === -1 ? text.length : end;
  const line = text.slice(start, lineEnd);
  const opener = `${format.prefix} ${SIGNATURE_MARKER}`;
  const lineNumber = start === 0 ? 1 : 2;

  if (!line.startsWith(opener)) {
    return { status: 'unsigned', misplacedLine: findSignatureLine(text, format, -1) };
  }
  const body = text.slice(0, start) + text.slice(end === -1 ? text.length : end + 1);
  const payload = payloadOf(line, format);
  const fields = payload === undefined ? undefined : tryParseSignaturePayload(payload);
  if (fields === undefined) return { status: 'malformed', line: lineNumber, body };
  return {
    status: 'signed',
    fields,
    body,
    duplicateLine: findSignatureLine(text, format, lineNumber),
  };
}

/** Offset of the line where the signature belongs (0, or after a `#!` line). */
export function signatureLineStart(text: string, format: CommentFormat): number {
  if (format.placement === 'after-shebang' && text.startsWith('#!')) {
    const newline = text.indexOf('\n');
    return newline === -1 ? text.length : newline + 1;
  }
  return 0;
}

/** Format one signature line (without its newline). */
export function formatCommentLine(payload: string, format: CommentFormat): string {
  return format.suffix === ''
    ? `${format.prefix} ${payload}`
    : `${format.prefix} ${payload} ${format.suffix}`;
}

function payloadOf(line: string, format: CommentFormat): string | undefined {
  let rest = line.slice(format.prefix.length + 1);
  if (format.suffix !== '') {
    const closer = ` ${format.suffix}`;
    if (!rest.endsWith(closer)) return undefined;
    rest = rest.slice(0, -closer.length);
  }
  return rest;
}

/**
 * 1-based number of the first whole line other than `skipLine` that is a
 * well-formed signature line of this format, or null. Placeholders such as
 * `# rye:signed:TIMESTAMP:HASH:SIG:FP` in documentation are not well formed.
 */
export function findSignatureLine(
  text: string,
  format: CommentFormat,
  skipLine: number,
): number | null {
  const opener = `${format.prefix} ${SIGNATURE_MARKER}`;
  let from = 0;
  for (;;) {
    const at = text.indexOf(opener, from);
    if (at === -1) return null;
    from = at + opener.length;
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    if (text.slice(lineStart, at).trim() !== '') continue;
    const lineNumber = countLines(text, lineStart);
    if (lineNumber === skipLine) continue;
    const newline = text.indexOf('\n', at);
    const line = text.slice(at, newline === -1 ? text.length : newline).trimEnd();
    const payload = payloadOf(line, format);
    if (payload !== undefined && tryParseSignaturePayload(payload) !== undefined) return lineNumber;
  }
}

function countLines(text: string, offset: number): number {
  let count = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1))
    count += 1;
  return count;
}
