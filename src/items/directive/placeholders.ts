/**
 * The placeholder scanner shared by validation and interpolation. One linear
 * pass over `{` positions with bounded sticky matches (no backtracking over the
 * text), so a hostile file of `{input:` repeats stays linear.
 */

/** A `{…}` token: `{input:name}`, a malformed `{input:…`, or a plain `{name}`. */
export type Token =
  | { readonly kind: 'input'; readonly name: string }
  | { readonly kind: 'malformed_input'; readonly raw: string }
  | { readonly kind: 'placeholder'; readonly name: string };

const INPUT = /input:([A-Za-z_][A-Za-z0-9_]{0,63})\}/y;
const INPUT_PREFIX = /input:/y;
const PLACEHOLDER = /([A-Za-z_][A-Za-z0-9_]{0,63})\}/y;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** Characters of a malformed token quoted in messages. */
const MALFORMED_SHOWN = 24;

/**
 * Visit every token in order. `start` is the index of `{`, `end` one past the
 * token. Pure.
 */
export function forEachToken(
  text: string,
  visit: (token: Token, start: number, end: number) => void,
): void {
  let at = text.indexOf('{');
  while (at >= 0) {
    const next = matchAt(text, at + 1);
    if (next === undefined) {
      at = text.indexOf('{', at + 1);
      continue;
    }
    visit(next.token, at, next.end);
    at = text.indexOf('{', next.end);
  }
}

/**
 * Replace tokens in a single pass: the replacement text is never scanned
 * again, so a value holding `{input:b}` stays literal. `replace` returns
 * undefined to keep a token as written. Pure.
 */
export function replaceTokens(text: string, replace: (token: Token) => string | undefined): string {
  const parts: string[] = [];
  let copied = 0;
  forEachToken(text, (token, start, end) => {
    const value = replace(token);
    if (value === undefined) return;
    parts.push(text.slice(copied, start), value);
    copied = end;
  });
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}

/** A malformed token as quoted in messages: up to its `}` or line end, control characters replaced. */
export function malformedSample(token: { readonly raw: string }): string {
  const line = token.raw.split('\n')[0] ?? '';
  const close = line.indexOf('}');
  return (close < 0 ? line : line.slice(0, close + 1)).replace(CONTROL, '?');
}

function matchAt(text: string, from: number): { token: Token; end: number } | undefined {
  INPUT.lastIndex = from;
  const input = INPUT.exec(text);
  if (input !== null)
    return { token: { kind: 'input', name: input[1] ?? '' }, end: INPUT.lastIndex };
  INPUT_PREFIX.lastIndex = from;
  if (INPUT_PREFIX.test(text)) {
    const end = INPUT_PREFIX.lastIndex;
    const raw = text.slice(from - 1, end + MALFORMED_SHOWN);
    return { token: { kind: 'malformed_input', raw }, end };
  }
  PLACEHOLDER.lastIndex = from;
  const plain = PLACEHOLDER.exec(text);
  if (plain !== null)
    return { token: { kind: 'placeholder', name: plain[1] ?? '' }, end: PLACEHOLDER.lastIndex };
  return undefined;
}
