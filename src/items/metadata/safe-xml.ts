/**
 * The hardened parser for a directive's `<directive>` span: DTD constructs and
 * processing instructions refused before parsing, entity expansion off, size
 * and depth capped. Untrusted input.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { RyeError } from '../../errors/index.js';

/** Largest `<directive>` span parsed (UTF-16 units); real directives are a few KB. */
const MAX_SPAN_CHARS = 256 * 1024;
/** Deepest element nesting accepted; real directives nest about 5 deep. */
const MAX_DEPTH = 32;
const OPEN_TAG = /<directive(?=[\s/>])/;
const CLOSE_TAG = '</directive>';
/** `<!` other than a comment or CDATA is a DTD construct (DOCTYPE, ENTITY, ELEMENT, ATTLIST…). */
const DECLARATION = /<!(?!--|\[CDATA\[)([A-Za-z]*)/;
const PROCESSING_INSTRUCTION = /<\?/;
const REFERENCE = /&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g;
const PREDEFINED: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
};

/** One element of the parsed span; text is the trimmed concatenation of its own text. */
export interface XmlElement {
  readonly tag: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly text: string;
  readonly children: readonly XmlElement[];
}

// Untrusted input: no entity expansion of any kind (processEntities off, no HTML
// entities); the five predefined references and character references are decoded
// by `decode` below, which cannot expand recursively.
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: MAX_DEPTH + 1,
});

/**
 * Parse the `<directive>` element of a directive file into an element tree,
 * without executing or expanding anything. The span runs from the first
 * `<directive` start tag to the last `</directive>`: the span the Python
 * implementation signed. Free text keeps working: a bare `&` or a `<` that cannot
 * start markup is read as a literal character.
 *
 * @throws RyeError PARSE_UNSAFE_CONTENT for DTD declarations, processing
 *   instructions, an oversized span or nesting deeper than the cap;
 *   METADATA_PARSE_FAILED when there is no element or the XML is malformed.
 */
export function parseDirectiveXml(text: string, source: string): XmlElement {
  const normalized = text.replace(/\r\n?/g, '\n');
  const start = normalized.search(OPEN_TAG);
  const end = normalized.lastIndexOf(CLOSE_TAG);
  if (start < 0 || end < start) {
    throw new RyeError(
      'METADATA_PARSE_FAILED',
      `Cannot read directive metadata in ${source}: no <directive>…</directive> element`,
      { source },
    );
  }
  const span = normalized.slice(start, end + CLOSE_TAG.length);
  const lineOffset = normalized.slice(0, start).split('\n').length - 1;
  refuseUnsafe(span, source, lineOffset);
  const xml = escapeLiterals(span);
  const verdict = XMLValidator.validate(xml);
  if (verdict !== true) {
    const line = verdict.err.line + lineOffset;
    // The parser quotes offending names verbatim; keep hostile input out of the message.
    const reason =
      verdict.err.msg.length > 200 ? `${verdict.err.msg.slice(0, 200)}…` : verdict.err.msg;
    throw new RyeError(
      'METADATA_PARSE_FAILED',
      `Cannot parse directive XML in ${source}: line ${line}: ${reason}`,
      { source, line, reason },
    );
  }
  let raw: unknown;
  try {
    raw = parser.parse(xml);
  } catch (error) {
    throw new RyeError(
      'METADATA_PARSE_FAILED',
      `Cannot parse directive XML in ${source}: ${(error as Error).message}`,
      { source },
      { cause: error },
    );
  }
  const root = (raw as RawNode[]).map(toElement).find((n) => typeof n !== 'string');
  if (root === undefined || root.tag !== 'directive') {
    throw new RyeError(
      'METADATA_PARSE_FAILED',
      `Cannot read directive metadata in ${source}: the root element is not <directive>`,
      { source },
    );
  }
  return root;
}

function refuseUnsafe(span: string, source: string, lineOffset: number): void {
  const refuse = (index: number, what: string): never => {
    const line = span.slice(0, index).split('\n').length + lineOffset;
    throw new RyeError(
      'PARSE_UNSAFE_CONTENT',
      `Cannot parse directive XML in ${source}: line ${line}: ${what} is not allowed in a directive`,
      { source, line, construct: what },
    );
  };
  if (span.length > MAX_SPAN_CHARS) {
    refuse(0, `a <directive> span over ${MAX_SPAN_CHARS} characters (${span.length})`);
  }
  const declaration = DECLARATION.exec(span);
  if (declaration) refuse(declaration.index, `<!${declaration[1] ?? ''}`);
  const instruction = PROCESSING_INSTRUCTION.exec(span);
  if (instruction) refuse(instruction.index, 'a processing instruction (<?…?>)');
  const depth = maxDepth(span);
  if (depth > MAX_DEPTH) refuse(0, `nesting ${depth} elements deep (cap ${MAX_DEPTH})`);
}

/**
 * Nesting depth of the span, counted before parsing so no parser recursion can run
 * away. A single linear pass (no backtracking regex): comments and CDATA are
 * skipped, quoted attribute values may hold `>`.
 */
function maxDepth(span: string): number {
  let depth = 0;
  let max = 0;
  let i = span.indexOf('<');
  while (i >= 0) {
    let end: number;
    if (span.startsWith('<!--', i)) end = span.indexOf('-->', i + 4);
    else if (span.startsWith('<![CDATA[', i)) end = span.indexOf(']]>', i + 9);
    else if (/[A-Za-z_/]/.test(span[i + 1] ?? '')) {
      end = tagEnd(span, i + 1);
      if (end < 0) break;
      if (span[i + 1] === '/') depth -= 1;
      else if (span[end - 1] !== '/') max = Math.max(max, (depth += 1));
    } else end = i;
    if (end < 0) break;
    i = span.indexOf('<', end + 1);
  }
  return max;
}

function tagEnd(span: string, from: number): number {
  let quote = '';
  for (let i = from; i < span.length; i += 1) {
    const c = span[i];
    if (quote !== '') quote = c === quote ? '' : quote;
    else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i;
  }
  return -1;
}

/** Escape a bare `&` and a `<` that cannot start markup, so free text parses. */
function escapeLiterals(span: string): string {
  return span
    .replace(/&(?!(?:lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)/g, '&amp;')
    .replace(/<(?![A-Za-z_/!])/g, '&lt;');
}

function decode(value: string): string {
  return value.replace(REFERENCE, (whole, ref: string) => {
    if (!ref.startsWith('#')) return PREDEFINED[ref] ?? whole;
    const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    const valid = code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) && code !== 0;
    return valid ? String.fromCodePoint(code) : whole;
  });
}

type RawNode = Readonly<Record<string, unknown>>;

function toElement(node: RawNode): XmlElement | string {
  if ('#text' in node) return decode(String(node['#text']));
  const tag = Object.keys(node).find((key) => key !== ':@') ?? '';
  const rawAttributes = (node[':@'] ?? {}) as Readonly<Record<string, unknown>>;
  const attributes = Object.fromEntries(
    Object.entries(rawAttributes).map(([key, value]) => [key, decode(String(value))]),
  );
  const nodes = ((node[tag] ?? []) as RawNode[]).map(toElement);
  const text = nodes
    .filter((n) => typeof n === 'string')
    .join('')
    .trim();
  const children = nodes.filter((n): n is XmlElement => typeof n !== 'string');
  return { tag, attributes, text, children };
}

/** Permissions: verb → item type → id patterns; `*` means "every" at either level. */
