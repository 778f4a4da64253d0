import { jsonNodeToValue, parseJsonAst } from '../../integrity/index.js';
import { findJsConstants } from './js-scan.js';
import { lineColumnAt, metadataError } from './literal-cursor.js';
import { parsePythonLiteral } from './literal-parser.js';
import { findPythonConstants } from './python-scan.js';
import type { FoundConstant } from './python-scan.js';
import { toolMetadataFromMapping, toolMetadataOf } from './tool-mapping.js';
import type { ToolField, ToolMetadata } from './types.js';

/** Each language's spelling (Python, JS/TS, shell comments) → the standard field name. */
const CONSTANT_FIELDS: ReadonlyMap<string, ToolField> = new Map([
  ['__version__', 'version'],
  ['__tool_type__', 'tool_type'],
  ['__executor_id__', 'executor_id'],
  ['__category__', 'category'],
  ['__tool_description__', 'description'],
  ['CONFIG_SCHEMA', 'config_schema'],
  ['ENV_CONFIG', 'env_config'],
  ['CONFIG', 'config'],
  ['__permissions__', 'permissions'],
]);
const CONSTANT_NAMES: ReadonlySet<string> = new Set(CONSTANT_FIELDS.keys());

const JS_EXTENSIONS = new Set(['js', 'mjs', 'cjs', 'ts', 'mts']);

/** `# NAME = value` in a shell script's leading comment block. */
const NEWLINE = /\r\n|\r|\n/g;
const SHELL_ASSIGNMENT = /^[ \t]*#[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=)/;

/**
 * Reads the metadata of a tool file in any format but YAML, without executing
 * anything (untrusted input), by the rules of extractToolMetadata (tool-metadata.ts).
 * YAML files go to the YAML reader (tool-metadata.ts): keeping them apart lets
 * a Python or JavaScript tool be read without loading the YAML library.
 *
 * @throws RyeError METADATA_PARSE_FAILED, PARSE_UNSAFE_CONTENT as extractToolMetadata.
 */
export function extractCodeToolMetadata(
  text: string,
  extension: string,
  source: string,
): ToolMetadata {
  const body = withoutBom(text);
  const ext = normalExtension(extension);
  if (ext === 'py') return fromConstants(findPythonConstants(body, source, CONSTANT_NAMES));
  if (JS_EXTENSIONS.has(ext)) return fromConstants(findJsConstants(body, source, CONSTANT_NAMES));
  if (ext === 'sh' || ext === 'bash') return fromConstants(findShellConstants(body, source));
  if (ext === 'json') return toolMetadataFromMapping(parseJson(body, source), source, 'JSON');
  return toolMetadataOf({}, Object.create(null) as Record<string, unknown>);
}

/** `.yaml`, `.YML`, `yaml`…: the tool formats the YAML reader handles. */
export function isYamlExtension(extension: string): boolean {
  const ext = normalExtension(extension);
  return ext === 'yaml' || ext === 'yml';
}

/** A text without its leading byte order mark. */
export function withoutBom(text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

function normalExtension(extension: string): string {
  return extension.toLowerCase().replace(/^\./, '');
}

function fromConstants(found: ReadonlyMap<string, FoundConstant>): ToolMetadata {
  const fields: Partial<Record<ToolField, unknown>> = {};
  for (const [name, { value }] of found) {
    const field = CONSTANT_FIELDS.get(name);
    if (field !== undefined) fields[field] = value;
  }
  return toolMetadataOf(fields, Object.create(null) as Record<string, unknown>);
}

/**
 * The strict JSON parser the signature layer uses (linear, depth capped before
 * any recursion, duplicate keys refused), so metadata is read from the very
 * document that was hashed.
 */
function parseJson(text: string, source: string): unknown {
  return jsonNodeToValue(parseJsonAst(text, source));
}

/**
 * `# __version__ = "1.0.0"` lines, one literal each, in the leading comment
 * block (shebang and signature line included); reading stops at the first
 * line that is not a comment.
 */
function findShellConstants(text: string, source: string): Map<string, FoundConstant> {
  const found = new Map<string, FoundConstant>();
  let pos = 0;
  while (pos < text.length) {
    NEWLINE.lastIndex = pos;
    const eol = NEWLINE.exec(text)?.index ?? text.length;
    const line = text.slice(pos, eol);
    if (!/^[ \t]*#/.test(line)) break;
    const match = SHELL_ASSIGNMENT.exec(line);
    const name = match?.[1];
    if (match !== null && name !== undefined && CONSTANT_NAMES.has(name)) {
      const options = { source, what: name, end: eol };
      const { value, end } = parsePythonLiteral(text, pos + match[0].length, options);
      const rest = text.slice(end, eol);
      if (!/^[ \t]*(?:#.*)?$/.test(rest)) {
        const at = end + rest.search(/\S/);
        const why = `unexpected ${JSON.stringify(text.charAt(at))} after the literal assigned to ${name}`;
        throw metadataError('METADATA_PARSE_FAILED', name, source, why, text, at);
      }
      const { line: lineNumber } = lineColumnAt(text, pos);
      const previous = found.get(name);
      if (previous !== undefined) {
        const why = `${name} is assigned twice (first on line ${previous.line})`;
        throw metadataError('METADATA_PARSE_FAILED', name, source, why, text, pos);
      }
      found.set(name, { value, line: lineNumber });
    }
    pos = eol + (text.startsWith('\r\n', eol) ? 2 : 1);
  }
  return found;
}
