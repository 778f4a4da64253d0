import { RyeError } from '../../errors/index.js';
import { parseYamlSafe } from './safe-yaml.js';
import type { KnowledgeMetadata } from './types.js';

/** A whole-line HTML comment: the signature line, `<!-- rye:unsigned -->` and the like. */
const COMMENT_LINE = /^<!--.*-->\s*$/;
const YAML_FENCE = /^```ya?ml\s*$/;
const FENCE_END = /^```\s*$/;
const DASHES = /^---\s*$/;
const DASHES_END = /^(?:---|\.\.\.)\s*$/;

/**
 * Read a knowledge entry's metadata without executing anything.
 *
 * - `.md`: YAML front matter in a leading ```yaml fence, or in a leading
 *   `---` … `---` block (the Python implementation's older form). Leading
 *   whole-line HTML comments (the signature line) and blank lines are skipped.
 *   No front matter gives empty fields.
 * - `.yaml` / `.yml`: the whole file (after those leading comment lines) is one
 *   YAML mapping.
 *
 * Every key is kept in `fields`; validate.ts checks the required ones.
 *
 * @throws RyeError PARSE_UNSAFE_CONTENT for YAML over the caps of parseYamlSafe
 *   (alias bombs, nesting, more than MAX_YAML_LEXEMES tokens); METADATA_PARSE_FAILED
 *   for YAML syntax errors, an unterminated front matter block or a non-mapping
 *   document; ITEM_UNSUPPORTED_EXTENSION for any other extension.
 */
export function extractKnowledgeMetadata(
  text: string,
  extension: string,
  source: string,
): KnowledgeMetadata {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let first = 0;
  while (first < lines.length && isPreamble(lines[first] ?? '')) first += 1;
  const ext = extension.toLowerCase().replace(/^\./, '');
  if (ext === 'yaml' || ext === 'yml') {
    return { kind: 'knowledge', fields: toFields(lines.slice(first).join('\n'), source) };
  }
  if (ext !== 'md') {
    throw new RyeError(
      'ITEM_UNSUPPORTED_EXTENSION',
      `Cannot read knowledge metadata in ${source}: extension "${extension}" is not .md, .yaml or .yml`,
      { source, extension },
    );
  }
  const opening = lines[first] ?? '';
  const closing = YAML_FENCE.test(opening) ? FENCE_END : DASHES.test(opening) ? DASHES_END : null;
  if (closing === null) return { kind: 'knowledge', fields: {} };
  const end = lines.findIndex((line, index) => index > first && closing.test(line));
  if (end < 0) {
    throw new RyeError(
      'METADATA_PARSE_FAILED',
      `Cannot read knowledge front matter in ${source}: the block opened on line ${first + 1} is never closed`,
      { source, line: first + 1 },
    );
  }
  return { kind: 'knowledge', fields: toFields(lines.slice(first + 1, end).join('\n'), source) };
}

function isPreamble(line: string): boolean {
  return line.trim() === '' || COMMENT_LINE.test(line.trim());
}

function toFields(yaml: string, source: string): Readonly<Record<string, unknown>> {
  const value = parseYamlSafe(yaml, source);
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new RyeError(
      'METADATA_PARSE_FAILED',
      `Cannot read knowledge metadata in ${source}: the front matter is not a mapping`,
      { source, actual: Array.isArray(value) ? 'array' : typeof value },
    );
  }
  // Copy through entries so a `__proto__` key stays a plain own property.
  return Object.fromEntries(Object.entries(value));
}
