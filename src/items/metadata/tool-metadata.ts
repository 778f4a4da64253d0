import { parseYamlSafe } from './safe-yaml.js';
import { extractCodeToolMetadata, isYamlExtension, withoutBom } from './tool-code-metadata.js';
import { toolMetadataFromMapping } from './tool-mapping.js';
import type { ToolMetadata } from './types.js';

/**
 * Reads a tool file's metadata without executing anything (untrusted input).
 *
 * - `.py`: column-0 assignments of `__version__`, `__tool_type__`,
 *   `__executor_id__`, `__category__`, `__tool_description__`, `CONFIG_SCHEMA`,
 *   `ENV_CONFIG`, `CONFIG`, each a Python literal; the rest of the module is
 *   skipped, never parsed as Python.
 * - `.js .mjs .cjs .ts .mts`: `export const NAME = <literal>` for the same names.
 * - `.sh .bash`: `# NAME = <Python literal>` lines in the leading comment block.
 * - `.yaml .yml .json`: top-level keys `version tool_type executor_id category
 *   description config_schema env_config config`; other keys go to `extra`
 *   (JSON's `_signature` is dropped). A document that is not a mapping is a dependency.
 * - Anything else (`.toml` included): no metadata.
 *
 * Guarantees: `fields` holds a key only when the file sets it, so an explicit
 * `None`/`null` executor_id is present with the value null; `isEntryPoint` is
 * true when tool_type or executor_id is present; values are plain data (null-prototype objects from the literal parser).
 *
 * Untrusted input: every reader is linear in the text, with caps (literal
 * length, nesting, YAML lexemes and aliases) that refuse hostile files fast.
 *
 * @throws RyeError METADATA_PARSE_FAILED for a recognised constant that is not
 *   a literal, is set twice or is rebound, and for YAML/JSON syntax errors
 *   (YAML duplicate keys included); PARSE_UNSAFE_CONTENT for nesting beyond 64
 *   levels, YAML alias bombs or more than MAX_YAML_LEXEMES lexemes, and JSON
 *   duplicate keys.
 */
export function extractToolMetadata(text: string, extension: string, source: string): ToolMetadata {
  if (!isYamlExtension(extension)) return extractCodeToolMetadata(text, extension, source);
  return toolMetadataFromMapping(readToolYaml(text, source), source, 'YAML');
}

/**
 * A YAML tool file's document, as {@link extractToolMetadata} reads it (byte
 * order mark dropped, parseYamlSafe's caps). The build precompiles the system
 * space's YAML tools with this very function (see precompiled-yaml.ts).
 *
 * @throws RyeError METADATA_PARSE_FAILED, PARSE_UNSAFE_CONTENT as parseYamlSafe.
 */
export function readToolYaml(text: string, source: string): unknown {
  return parseYamlSafe(withoutBom(text), source);
}
