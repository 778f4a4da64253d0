import { RyeError } from '../errors/index.js';
import { SHORT_ESCAPES, canonicalJson } from './canonical-json.js';
import { parseJsonAst } from './json-ast.js';
import type { JsonEntry, JsonNode, JsonObjectNode } from './json-ast.js';

/** A `.json` item split into what is signed and the signature that signs it. */
export interface JsonSignatureRead {
  /** The parsed document (top level is always an object). */
  readonly root: JsonObjectNode;
  /** The raw signature field value (not yet checked against the line format), or null. */
  readonly payload: string | null;
  /** Canonical JSON of `root` without the signature field: the text whose SHA-256 is signed. */
  readonly hashedText: string;
}

/**
 * Parse a `.json` item (untrusted text) and split it for signing or
 * verification. `hashedText` is the canonical JSON (see `canonicalJson`) of the
 * top-level object minus `field`: independent of key order, whitespace, escape
 * spelling and the signature itself, and equal to what the Python
 * implementation hashes. Nested fields of the same name are ordinary data.
 *
 * @param field the signature field, `_signature` in the default format table.
 * @throws RyeError METADATA_PARSE_FAILED or PARSE_UNSAFE_CONTENT from `parseJsonAst`;
 *   METADATA_PARSE_FAILED when the top level is not an object (it cannot carry a
 *   signature); INTEGRITY_MALFORMED_SIGNATURE when `field` is present but not a string.
 */
export function readJsonSignature(text: string, field: string, source: string): JsonSignatureRead {
  const root = requireObject(parseJsonAst(text, source), source);
  const entry = root.entries.find((e) => e.key === field);
  if (entry !== undefined && entry.value.type !== 'string') {
    throw new RyeError(
      'INTEGRITY_MALFORMED_SIGNATURE',
      `Cannot read the signature of ${source}: "${field}" is ${article(entry.value.type)}, not a string`,
      { source, field, actualType: entry.value.type },
    );
  }
  return {
    root,
    payload: entry?.value.type === 'string' ? entry.value.value : null,
    hashedText: canonicalJson(withoutField(root, field)),
  };
}

/**
 * The item's file text with `payload` as the first top-level key `field`
 * (replacing any existing one), or without `field` when `payload` is null.
 * Other keys keep their order, numbers their lexemes, strings their characters
 * (UTF-8; control, bidi and lone-surrogate characters escaped); 2-space
 * indentation and a final LF. The result's `hashedText` equals the input's, so
 * a signature computed from `readJsonSignature(text).hashedText` fits it.
 *
 * @throws RyeError as {@link readJsonSignature}.
 */
export function writeJsonSignature(
  text: string,
  field: string,
  payload: string | null,
  source: string,
): string {
  const body = withoutField(readJsonSignature(text, field, source).root, field);
  const entries: readonly JsonEntry[] =
    payload === null
      ? body.entries
      : [{ key: field, value: { type: 'string', value: payload } }, ...body.entries];
  return `${formatIndented({ type: 'object', entries }, '')}\n`;
}

function requireObject(root: JsonNode, source: string): JsonObjectNode {
  if (root.type === 'object') return root;
  throw new RyeError(
    'METADATA_PARSE_FAILED',
    `Cannot read the signature of ${source}: a signed JSON item must be an object at top level, not ${article(root.type)}`,
    { source, actualType: root.type },
  );
}

function withoutField(root: JsonObjectNode, field: string): JsonObjectNode {
  return { type: 'object', entries: root.entries.filter((e) => e.key !== field) };
}

function article(type: JsonNode['type']): string {
  return type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`;
}

function formatIndented(node: JsonNode, indent: string): string {
  const inner = `${indent}  `;
  switch (node.type) {
    case 'object': {
      if (node.entries.length === 0) return '{}';
      const members = node.entries.map(
        (e) => `${inner}${readableJsonString(e.key)}: ${formatIndented(e.value, inner)}`,
      );
      return `{\n${members.join(',\n')}\n${indent}}`;
    }
    case 'array': {
      if (node.items.length === 0) return '[]';
      const items = node.items.map((item) => `${inner}${formatIndented(item, inner)}`);
      return `[\n${items.join(',\n')}\n${indent}]`;
    }
    case 'string':
      return readableJsonString(node.value);
    case 'number':
      return node.lexeme;
    case 'boolean':
      return node.value ? 'true' : 'false';
    case 'null':
      return 'null';
  }
}

/**
 * What must not appear raw in the reviewed file: C0/DEL/C1 controls, line and
 * paragraph separators, bidi controls (Trojan Source, CVE-2021-42574), and lone
 * surrogates, which have no UTF-8 form and would turn into U+FFFD on write.
 */
const UNREADABLE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /["\\\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function readableJsonString(value: string): string {
  const body = value.replace(
    UNREADABLE,
    (ch) => SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `"${body}"`;
}
