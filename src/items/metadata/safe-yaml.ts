import * as yaml from 'yaml';
import { RyeError } from '../../errors/index.js';
import { MAX_LITERAL_DEPTH } from './literal-cursor.js';
import { parseYamlDocumentCapped } from './yaml-document.js';
import { yamlToValue } from './yaml-value.js';

/**
 * Most YAML lexemes read from one metadata document. The system runtimes hold
 * under 2,000; the `yaml` package needs one to a few microseconds each, so
 * the worst document costs a fraction of a second, whatever its size in bytes.
 */
export const MAX_YAML_LEXEMES = 100_000;
/** Alias nodes tolerated in one document. */
export const MAX_YAML_ALIASES = 50;
/**
 * Nodes all aliases together may stand for (a string: one per 64 characters):
 * a billion-laughs document stands for billions.
 */
export const MAX_YAML_ALIASED_NODES = 10_000;
/**
 * Deepest nesting the CST parser may reach: every map and sequence level,
 * plus the document and compact `- - x` forms. Twice the data cap, so the
 * data cap (below) gives the error for real nesting.
 */
const MAX_CST_DEPTH = 2 * MAX_LITERAL_DEPTH + 2;

/**
 * Parse untrusted YAML (item metadata, knowledge front matter) with the core
 * schema only: no custom tags, duplicate keys refused, every cost capped.
 * Work is linear in the text: lexemes and nesting are capped while the text
 * is tokenised, duplicate keys found with a set, aliases resolved in one pass.
 *
 * Guarantees: the result is plain data (objects, arrays, strings, numbers,
 * booleans, null) nested at most MAX_LITERAL_DEPTH deep, without cycles; two
 * keys of one map never name the same property (`1` and `"1"` included).
 *
 * @throws RyeError PARSE_UNSAFE_CONTENT for more than MAX_YAML_LEXEMES lexemes,
 *   nesting deeper than MAX_LITERAL_DEPTH, more than MAX_YAML_ALIASES aliases
 *   or aliases standing for more than MAX_YAML_ALIASED_NODES nodes (alias
 *   bombs), and cyclic aliases; METADATA_PARSE_FAILED for syntax errors,
 *   duplicate keys, non-scalar keys and aliases without an anchor.
 */
export function parseYamlSafe(text: string, source: string): unknown {
  const doc = parseYamlDocumentCapped(
    yaml,
    text,
    source,
    { maxLexemes: MAX_YAML_LEXEMES, maxDepth: MAX_CST_DEPTH },
    { schema: 'core', uniqueKeys: false, prettyErrors: false },
  );
  if (doc.errors.length > 0) {
    // The library quotes offending text verbatim: keep hostile input out of the message.
    const errors = doc.errors.slice(0, 20).map((e) => shorten(e.message));
    throw new RyeError(
      'METADATA_PARSE_FAILED',
      `Cannot parse YAML in ${source}: ${errors[0] ?? 'syntax error'}`,
      { source, errors, errorCount: doc.errors.length },
    );
  }
  return yamlToValue(doc, source, {
    maxAliases: MAX_YAML_ALIASES,
    maxAliasedNodes: MAX_YAML_ALIASED_NODES,
    maxDepth: MAX_LITERAL_DEPTH,
  });
}

function shorten(message: string): string {
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}
