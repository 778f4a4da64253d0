import type { KnowledgeMetadata } from '../items/index.js';

// The framing rules of extractKnowledgeMetadata (items/metadata/knowledge-metadata.ts),
// repeated exactly: the two readers must find the same block.
const COMMENT_LINE = /^<!--.*-->\s*$/;
const YAML_FENCE = /^```ya?ml\s*$/;
const FENCE_END = /^```\s*$/;
const DASHES = /^---\s*$/;
const DASHES_END = /^(?:---|\.\.\.)\s*$/;

/**
 * Bounds under which the simple reader answers. Far below the full parser's
 * caps (MAX_YAML_LEXEMES): a block the full parser would refuse as too costly
 * is never accepted here.
 */
const MAX_LINES = 200;
const MAX_ITEMS = 2000;

/** Control, format and line-separator characters: left to the full parser. */
const AWKWARD = /[\p{C}\u2028\u2029]/u;
/** Printable ASCII only: none of AWKWARD (the common case, checked without Unicode tables). */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const PAIR = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
/**
 * A plain scalar that can only be a string under the core schema: it starts
 * with a letter (never a number, `.inf`, `~` or an indicator) and holds no
 * `:`, `#`, quote, bracket, `&`, `*`, `|`, `>`, `%`, `@` or backquote.
 */
const PLAIN = /^[\p{L}_][\p{L}\p{N} _.,;()/+=?!-]*$/u;
/** PLAIN's ASCII subset, tried first: cheaper, and anything it accepts PLAIN accepts. */
const PLAIN_ASCII = /^[A-Za-z_][A-Za-z0-9 _.,;()/+=?!-]*$/;
/** The same inside a flow sequence, where `,` separates items. */
const FLOW_PLAIN = /^[\p{L}_][\p{L}\p{N} _.;()/+=?!-]*$/u;
const FLOW_PLAIN_ASCII = /^[A-Za-z_][A-Za-z0-9 _.;()/+=?!-]*$/;
const DOUBLE_QUOTED = /^"([^"\\]*)"$/;
const SINGLE_QUOTED = /^'([^']*)'$/;
/** Plain words the core schema reads as null or a boolean (any case, to stay on the safe side). */
const RESERVED = /^(?:null|true|false)$/i;

/**
 * A knowledge entry's metadata read without the YAML parser, for the shape
 * nearly every entry has: a leading ```yaml fence (or `---` block) of
 * top-level `key: value` lines whose values are plain words, quoted strings
 * without escapes, or a one-line `[a, b]` list of them. Returns exactly what
 * extractKnowledgeMetadata returns for that text, or undefined for anything
 * else (another extension, `\r`, indentation, nesting, escapes, comments after
 * a value, duplicate keys, numbers, booleans, an unclosed block, more than 200
 * lines…), so the caller falls back to the full, capped parser and its errors.
 * The test suite checks the two readers agree on generated blocks. Pure.
 */
export function readSimpleKnowledgeMetadata(
  text: string,
  extension: string,
): KnowledgeMetadata | undefined {
  if (extension !== '.md') return undefined;
  const lines = new LineReader(text);
  let opening = lines.next();
  while (typeof opening === 'string' && isPreamble(opening)) opening = lines.next();
  if (opening === null) return undefined;
  if (opening === undefined) return { kind: 'knowledge', fields: {} };
  const closing = YAML_FENCE.test(opening) ? FENCE_END : DASHES.test(opening) ? DASHES_END : null;
  if (closing === null) return { kind: 'knowledge', fields: {} };
  const entries: [string, unknown][] = [];
  const seen = new Set<string>();
  let items = 0;
  for (let count = 0; count <= MAX_LINES; count += 1) {
    const raw = lines.next();
    // No closing line (the full parser's METADATA_PARSE_FAILED), or a `\r`.
    if (raw === undefined || raw === null) return undefined;
    if (closing.test(raw)) return { kind: 'knowledge', fields: Object.fromEntries(entries) };
    if (!PRINTABLE_ASCII.test(raw) && AWKWARD.test(raw)) return undefined;
    const line = raw.replace(/ +$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const pair = PAIR.exec(line);
    if (pair === null) return undefined;
    const key = pair[1] as string;
    if (RESERVED.test(key) || seen.has(key)) return undefined;
    seen.add(key);
    const value = valueOf(pair[2] ?? '');
    if (value === undefined) return undefined;
    if (Array.isArray(value)) items += value.length;
    if (items > MAX_ITEMS) return undefined;
    entries.push([key, value]);
  }
  return undefined;
}

/** `null` for an empty value, a string, a list of strings; undefined when not simple. */
function valueOf(text: string): unknown {
  if (text === '') return null;
  if (text.startsWith('[')) {
    if (!text.endsWith(']')) return undefined;
    const inner = text.slice(1, -1);
    if (/^ *$/.test(inner)) return [];
    const out: string[] = [];
    for (const part of inner.split(',')) {
      const item = scalarOf(part.replace(/^ +| +$/g, ''), FLOW_PLAIN_ASCII, FLOW_PLAIN);
      if (item === undefined) return undefined;
      out.push(item);
    }
    return out;
  }
  return scalarOf(text, PLAIN_ASCII, PLAIN);
}

function scalarOf(text: string, ascii: RegExp, plain: RegExp): string | undefined {
  const first = text.charCodeAt(0);
  if (first === 0x22 || first === 0x27) {
    const quoted = DOUBLE_QUOTED.exec(text) ?? SINGLE_QUOTED.exec(text);
    return quoted === null ? undefined : quoted[1];
  }
  return (ascii.test(text) || plain.test(text)) && !RESERVED.test(text) ? text : undefined;
}

function isPreamble(line: string): boolean {
  return line.trim() === '' || COMMENT_LINE.test(line.trim());
}

/** The text's lines in order, without splitting the rest of a long body. */
class LineReader {
  private offset = 0;

  constructor(private readonly text: string) {}

  /** The next line; undefined at the end; null for a line holding `\r` (the full reader rewrites it). */
  next(): string | null | undefined {
    if (this.offset > this.text.length) return undefined;
    let end = this.text.indexOf('\n', this.offset);
    if (end < 0) end = this.text.length;
    const line = this.text.slice(this.offset, end);
    this.offset = end + 1;
    return line.includes('\r') ? null : line;
  }
}
