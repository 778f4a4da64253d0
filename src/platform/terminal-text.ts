/**
 * Terminal-safe rendering of strings that come from outside (trust files, item
 * metadata, file names, manifests, lockfiles, registry answers).
 *
 * Threat: printed raw, ESC/CSI sequences rewrite the screen (clear a warning,
 * draw a fake "ok"), CR and LF forge lines, C1 controls act as 8-bit escape
 * introducers on some terminals, and bidi overrides, zero-width and tag
 * characters make text look like other text.
 */

/**
 * What a terminal would interpret or not show: every control (C0, DEL, C1:
 * `\p{Cc}`), every invisible format character (`\p{Cf}`: bidi embeddings,
 * overrides and isolates, zero-width characters, word joiner, BOM, soft
 * hyphen, Unicode tags…), the line and paragraph separators U+2028/U+2029,
 * and lone surrogates (which an encoder would replace without a trace).
 * One character class, no backtracking: linear in the length of the text.
 */
// The whole tag block: its unassigned code points (U+E0002–U+E001F) are not
// \p{Cf}, yet render as nothing, like the tags around them.
const UNSAFE_CLASS = '[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\u{E0000}-\\u{E007F}]';
// Built on first use, literal or constructed alike: V8 parses a Unicode
// class when the RegExp is made, ~0.5 ms for these, which every command
// paid at start-up while its output is almost always plain ASCII.
let unsafe: RegExp | undefined;
let unsafeAll: RegExp | undefined;
let controls: RegExp | undefined;
const unsafeRe = (): RegExp => (unsafe ??= new RegExp(UNSAFE_CLASS, 'u'));
const unsafeAllRe = (): RegExp => (unsafeAll ??= new RegExp(UNSAFE_CLASS, 'gu'));
const controlsRe = (): RegExp => (controls ??= new RegExp('\\p{Cc}', 'gu'));
// Printable ASCII, with LF and TAB in JSON text: nothing to rewrite. Checked
// first, so the Unicode classes above are built only for text that is not
// (a whole CLI run's output is usually this).
const PLAIN = /^[\x20-\x7e]*$/;
const PLAIN_LINES = /^[\x20-\x7e\n]*$/;
const PLAIN_JSON = /^[\x20-\x7e\n\t]*$/;

const SHORT: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** True when `text` holds a character {@link escapeControl} would rewrite. */
export function hasControl(text: string): boolean {
  return !PLAIN.test(text) && unsafeRe().test(text);
}

/**
 * `text` made safe for one line of terminal output: every control, invisible
 * format or separator character is shown as an escape (`\t`, `\n`, `\r`,
 * `\x1b`, `\x9b`, `\u202e`, `\u{e0041}`, `\ud800` for a lone surrogate);
 * everything else, backslashes included, is unchanged. Pure and linear; text
 * without such characters is returned as is. The result is for reading, not
 * for parsing back (a literal `\x1b` typed in the text looks the same): JSON
 * output is the unambiguous form.
 */
export function escapeControl(text: string): string {
  if (PLAIN.test(text) || !unsafeRe().test(text)) return text;
  return text.replace(unsafeAllRe(), (ch) => SHORT[ch] ?? visible(ch.codePointAt(0) ?? 0));
}

/**
 * `text` made safe for terminal output keeping its line breaks: each LF stays
 * a line break, everything else as in {@link escapeControl} (a CR before an LF
 * shows as `\r`). For multi-line text the CLI displays as a whole (a lockfile,
 * a stack trace, help); a value inside one line takes {@link escapeControl}.
 */
export function escapeControlLines(text: string): string {
  if (PLAIN_LINES.test(text) || !unsafeRe().test(text)) return text;
  return text.split('\n').map(escapeControl).join('\n');
}

/**
 * Valid JSON text made safe to print, with the same meaning: every character
 * {@link escapeControl} would rewrite becomes its `\uXXXX` escape (a surrogate
 * pair for one above U+FFFF). In valid JSON such characters stand only inside
 * strings, where the escape parses back to the same character, with three
 * exceptions, JSON whitespace between tokens: LF and TAB are kept, and so is a
 * CR before an LF; a lone CR (which would rewind the line) becomes an LF.
 */
export function escapeControlInJson(json: string): string {
  if (PLAIN_JSON.test(json) || !unsafeRe().test(json)) return json;
  return json.replace(unsafeAllRe(), (ch, offset: number) => {
    if (ch === '\n' || ch === '\t') return ch;
    if (ch === '\r') return json[offset + 1] === '\n' ? ch : '\n';
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${hex(ch.charCodeAt(i), 4)}`;
    return out;
  });
}

/**
 * A value from outside, shortened to quote inside an error message: every
 * control character (C0, DEL, C1) becomes `?`, and at most `max` characters
 * (code points, so a surrogate pair is never split) are kept. Invisible format
 * characters stay, for the output edge to show as escapes (`\u202e`) where a
 * reader sees them. Pure; reads at most `2 * max` code units of `text`.
 */
export function printable(text: string, max = 200): string {
  const head = text.length > 2 * max ? text.slice(0, 2 * max) : text;
  const chars = Array.from(head.replace(controlsRe(), '?'));
  return chars.length > max ? chars.slice(0, max).join('') : chars.join('');
}

function visible(cp: number): string {
  if (cp < 0x100) return `\\x${hex(cp, 2)}`;
  if (cp < 0x10000) return `\\u${hex(cp, 4)}`;
  return `\\u{${cp.toString(16)}}`;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}
