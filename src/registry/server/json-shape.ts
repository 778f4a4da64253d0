/**
 * UNTRUSTED INPUT: a linear pre-check of a request body before `JSON.parse`.
 * Every registry body is one flat object of strings, booleans, numbers or
 * null, so an array, a nested object or more members than the endpoint names
 * is refused here, before V8's parser builds anything (12 MiB of `[` costs it
 * about two seconds of the one request thread).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;

/**
 * Why `text` cannot be a flat JSON object of at most `maxMembers` members, or
 * undefined when it may be one (`JSON.parse` still decides the syntax).
 * Strings are skipped with `indexOf`, so the cost is one pass over the text.
 */
export function flatObjectProblem(text: string, maxMembers: number): string | undefined {
  let depth = 0;
  let commas = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (end === -1) return 'a string is not terminated';
      i = end + 1;
      continue;
    }
    if (c === OPEN_BRACKET) return 'it holds an array';
    if (c === OPEN_BRACE && ++depth > 1) return 'it holds a nested object';
    if (c === CLOSE_BRACE) depth -= 1;
    if (c === COMMA && depth === 1 && ++commas >= maxMembers) {
      return `it has more than ${maxMembers} fields`;
    }
    i += 1;
  }
  return undefined;
}

/** The index of the quote closing the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    // Escaped when an odd run of backslashes precedes it; each run is walked once.
    let k = quote - 1;
    while (k > open && text.charCodeAt(k) === BACKSLASH) k -= 1;
    if ((quote - 1 - k) % 2 === 0) return quote;
    from = quote + 1;
  }
}
