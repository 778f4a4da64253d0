import type { RyeError } from '../../errors/index.js';
import { isLineTerminator, skipJsSpace, skipTsType, takeKeyword } from './js-literal.js';
import {
  LiteralCursor,
  MAX_LITERAL_DEPTH,
  isIdentifierPart,
  isIdentifierStart,
  lineColumnAt,
  metadataError,
} from './literal-cursor.js';
import { parseJsLiteral } from './literal-parser.js';
import type { FoundConstant } from './python-scan.js';

const WHAT = 'JavaScript module';

/** After these words an expression starts, so `/` opens a regular expression. */
// prettier-ignore
const EXPRESSION_KEYWORDS = new Set([
  'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw',
  'case', 'do', 'else', 'yield', 'await', 'export', 'default', 'extends',
]);

/** Words that continue an expression on the next line (no automatic semicolon before them). */
const CONTINUING_WORDS = new Set(['in', 'instanceof', 'as', 'satisfies']);

/**
 * Finds `export const NAME = <literal>` (or `export const NAME: T = <literal>`)
 * for the given names, without running or fully parsing the module. The
 * scanner skips comments, strings, template literals (with their `${}` code),
 * regular expressions and a `#!` line, so text inside them never counts.
 *
 * A recognised name must be exported once, with `const`, one declarator per
 * statement, initialised with a literal and nothing after it but `;`, a
 * comment or a line break before a new statement; anything else fails closed.
 *
 * @throws RyeError METADATA_PARSE_FAILED (naming the constant and its line) or,
 *   for nesting bombs, PARSE_UNSAFE_CONTENT.
 */
export function findJsConstants(
  text: string,
  source: string,
  names: ReadonlySet<string>,
): Map<string, FoundConstant> {
  const scanner = new JsModuleScanner(
    new LiteralCursor(text, 0, source, WHAT, text.length, Infinity),
    names,
  );
  scanner.scanCode(false, 0);
  return scanner.found;
}

class JsModuleScanner {
  readonly found = new Map<string, FoundConstant>();
  /** Whether a `/` here would divide (after a value) or open a regex (after an operator). */
  private afterValue = false;
  /** Index of the end of a line where a regex failed to close: no regex starts before it. */
  private regexBlockedUntil = -1;

  constructor(
    private readonly cur: LiteralCursor,
    private readonly names: ReadonlySet<string>,
  ) {}

  /** Scans code; inside a `${}` field (`inField`) it returns past the closing `}`. */
  scanCode(inField: boolean, nesting: number): void {
    const cur = this.cur;
    let depth = 0;
    for (;;) {
      skipJsSpace(cur);
      const c = cur.peek();
      if (c === '') {
        if (inField) throw this.fail('unterminated template literal');
        return;
      }
      const lineStart = cur.pos === 0 || isLineTerminator(cur.text.charAt(cur.pos - 1));
      if (c === '#' && cur.peek(1) === '!' && lineStart) {
        while (cur.peek() !== '' && !isLineTerminator(cur.peek())) cur.pos++;
      } else if (c === '"' || c === "'") this.skipString(c);
      else if (c === '`') this.skipTemplate(nesting + 1);
      else if (c === '/') this.slash();
      else if (isIdentifierPart(c) || c === '#') this.word(inField || depth > 0);
      else {
        cur.pos++;
        this.afterValue = c === ')' || c === ']';
        if (c === '{') depth++;
        if (c === '}') {
          if (depth === 0 && inField) return;
          depth = Math.max(0, depth - 1);
        }
      }
    }
  }

  private word(nested: boolean): void {
    const cur = this.cur;
    const start = cur.pos;
    cur.pos++;
    while (isIdentifierPart(cur.peek())) cur.pos++;
    const word = cur.text.slice(start, cur.pos);
    const member = start > 0 && cur.text.charAt(start - 1) === '.';
    this.afterValue = member || !EXPRESSION_KEYWORDS.has(word);
    if (word === 'export' && !member && !nested) this.exportStatement();
  }

  private exportStatement(): void {
    const cur = this.cur;
    skipJsSpace(cur);
    const keyword = ['const', 'let', 'var'].find((k) => takeKeyword(cur, k));
    if (keyword === undefined) return;
    skipJsSpace(cur);
    const nameAt = cur.pos;
    const name = isIdentifierStart(cur.peek()) ? cur.readWord() : '';
    if (!this.names.has(name)) return;
    if (keyword !== 'const') {
      throw this.fail(`${name} must be declared with export const, not ${keyword}`, nameAt, name);
    }
    skipJsSpace(cur);
    if (cur.peek() === ':') {
      cur.pos++;
      skipTsType(cur, 'annotation');
    }
    if (cur.peek() !== '=' || cur.peek(1) === '=') {
      throw this.fail(`${name} is not initialised with a literal`, nameAt, name);
    }
    const { value, end } = parseJsLiteral(cur.text, cur.pos + 1, {
      source: cur.source,
      what: name,
    });
    cur.pos = end;
    this.statementEnd(name);
    const previous = this.found.get(name);
    if (previous !== undefined) {
      throw this.fail(`${name} is exported twice (first on line ${previous.line})`, nameAt, name);
    }
    this.found.set(name, { value, line: lineColumnAt(cur.text, nameAt).line });
    this.afterValue = false;
  }

  /** Only `;`, the end of the file, or a line break before a new statement may follow. */
  private statementEnd(name: string): void {
    const cur = this.cur;
    const crossed = skipJsSpace(cur);
    const c = cur.peek();
    if (c === ';' || c === '') return;
    if (c === ',')
      throw this.fail(`declare ${name} in its own export const statement`, cur.pos, name);
    if (crossed && (isIdentifierStart(c) || c === '@' || c === '}')) {
      const at = cur.pos;
      const word = cur.readWord();
      cur.pos = at;
      if (!CONTINUING_WORDS.has(word)) return;
    }
    const found = JSON.stringify(c);
    throw this.fail(`unexpected ${found} after the literal assigned to ${name}`, cur.pos, name);
  }

  private skipString(quote: string): void {
    const cur = this.cur;
    const start = cur.pos;
    cur.pos++;
    for (;;) {
      const c = cur.peek();
      if (c === quote) break;
      if (c === '' || c === '\n' || c === '\r') throw this.fail('unterminated string', start);
      cur.pos += c === '\\' ? (cur.startsWith('\\\r\n') ? 3 : 2) : 1;
    }
    cur.pos++;
    this.afterValue = true;
  }

  private skipTemplate(nesting: number): void {
    const cur = this.cur;
    if (nesting > MAX_LITERAL_DEPTH) {
      const why = `template literals are nested deeper than ${MAX_LITERAL_DEPTH} levels`;
      throw metadataError('PARSE_UNSAFE_CONTENT', WHAT, cur.source, why, cur.text, cur.pos);
    }
    const start = cur.pos;
    cur.pos++;
    for (;;) {
      const c = cur.peek();
      if (c === '') throw this.fail('unterminated template literal', start);
      if (c === '`') break;
      if (c === '$' && cur.peek(1) === '{') {
        cur.pos += 2;
        this.scanCode(true, nesting);
      } else cur.pos += c === '\\' ? 2 : 1;
    }
    cur.pos++;
    this.afterValue = true;
  }

  /** A `/` that is not a comment: division after a value, else a regular expression. */
  private slash(): void {
    const cur = this.cur;
    const start = cur.pos;
    cur.pos++;
    if (this.afterValue || start < this.regexBlockedUntil) {
      this.afterValue = false;
      return;
    }
    let inClass = false;
    for (;;) {
      const c = cur.peek();
      // A line break means this was not a regex after all: read the `/` as an operator,
      // and every later `/` on this line too, so a hostile line costs linear time.
      if (c === '' || isLineTerminator(c)) {
        this.regexBlockedUntil = cur.pos;
        cur.pos = start + 1;
        return;
      }
      if (c === '\\') cur.pos += 2;
      else {
        cur.pos++;
        if (c === '[') inClass = true;
        else if (c === ']') inClass = false;
        else if (c === '/' && !inClass) break;
      }
    }
    while (isIdentifierPart(cur.peek())) cur.pos++;
    this.afterValue = true;
  }

  private fail(why: string, at: number = this.cur.pos, what: string = WHAT): RyeError {
    return metadataError('METADATA_PARSE_FAILED', what, this.cur.source, why, this.cur.text, at);
  }
}
