import { parseDocument } from 'yaml';
import { RyeError } from '../../errors/index.js';

/** Alias expansions tolerated in one document before it is treated as a bomb. */
const MAX_ALIAS_COUNT = 50;

/**
 * Parse untrusted YAML (item metadata, knowledge front matter) with the core
 * schema only: no custom tags, duplicate keys refused, alias expansion capped.
 *
 * @throws RyeError PARSE_UNSAFE_CONTENT for alias bombs; METADATA_PARSE_FAILED for syntax errors.
 */
export function parseYamlSafe(text: string, source: string): unknown {
  const doc = parseDocument(text, { schema: 'core', uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    throw new RyeError(
      'METADATA_PARSE_FAILED',
      `Cannot parse YAML in ${source}: ${first?.message ?? 'syntax error'}`,
      { source, errors: doc.errors.map((e) => e.message) },
    );
  }
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    throw new RyeError(
      'PARSE_UNSAFE_CONTENT',
      `Cannot parse YAML in ${source}: alias expansion exceeds the cap of ${MAX_ALIAS_COUNT}`,
      { source },
      { cause: error },
    );
  }
}
