import { RyeError } from '../../errors/index.js';
import { jsonNodeToValue, parseJsonAst } from '../../integrity/index.js';
import { findJsConstants } from './js-scan.js';
import { lineColumnAt, metadataError } from './literal-cursor.js';
import { MAX_LITERAL_DEPTH, parsePythonLiteral } from './literal-parser.js';
import { findPythonConstants } from './python-scan.js';
import type { FoundConstant } from './python-scan.js';
import { parseYamlSafe } from './safe-yaml.js';
import { TOOL_FIELDS } from './types.js';
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
]);
const CONSTANT_NAMES: ReadonlySet<string> = new Set(CONSTANT_FIELDS.keys());

/**
 * Either of these makes a file an entry point rather than a dependency. Not
 * `version` or `description`: a package.json or a Python package's __init__.py
 * carries those without being a tool.
 */
const ENTRY_POINT_FIELDS: readonly ToolField[] = ['tool_type', 'executor_id'];

const JS_EXTENSIONS = new Set(['js', 'mjs', 'cjs', 'ts', 'mts']);

/** `# NAME = value` in a shell script's leading comment block. */
const NEWLINE = /\r\n|\r|\n/g;
const SHELL_ASSIGNMENT = /^[ \t]*#[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=)/;

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
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const ext = extension.toLowerCase().replace(/^\./, '');
  if (ext === 'py') return fromConstants(findPythonConstants(body, source, CONSTANT_NAMES));
  if (JS_EXTENSIONS.has(ext)) return fromConstants(findJsConstants(body, source, CONSTANT_NAMES));
  if (ext === 'sh' || ext === 'bash') return fromConstants(findShellConstants(body, source));
  if (ext === 'yaml' || ext === 'yml')
    return fromMapping(parseYamlSafe(body, source), source, 'YAML');
  if (ext === 'json') return fromMapping(parseJson(body, source), source, 'JSON');
  return toolMetadata({}, Object.create(null) as Record<string, unknown>);
}

function toolMetadata(
  fields: Partial<Record<ToolField, unknown>>,
  extra: Record<string, unknown>,
): ToolMetadata {
  const isEntryPoint = ENTRY_POINT_FIELDS.some((field) => Object.hasOwn(fields, field));
  return { kind: 'tool', isEntryPoint, fields, extra };
}

function fromConstants(found: ReadonlyMap<string, FoundConstant>): ToolMetadata {
  const fields: Partial<Record<ToolField, unknown>> = {};
  for (const [name, { value }] of found) {
    const field = CONSTANT_FIELDS.get(name);
    if (field !== undefined) fields[field] = value;
  }
  return toolMetadata(fields, Object.create(null) as Record<string, unknown>);
}

function fromMapping(doc: unknown, source: string, format: 'YAML' | 'JSON'): ToolMetadata {
  const fields: Partial<Record<ToolField, unknown>> = {};
  const extra = Object.create(null) as Record<string, unknown>;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return toolMetadata(fields, extra);
  assertDepth(doc, source, format);
  for (const [key, value] of Object.entries(doc)) {
    if ((TOOL_FIELDS as readonly string[]).includes(key)) fields[key as ToolField] = value;
    else if (!(format === 'JSON' && key === '_signature')) {
      Object.defineProperty(extra, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return toolMetadata(fields, extra);
}

/**
 * Refuses data nested deeper than MAX_LITERAL_DEPTH containers, and cycles
 * (YAML anchors can make them): downstream code walks these values recursively.
 */
function assertDepth(root: object, source: string, format: string): void {
  const heights = new Map<object, number>();
  const visit = (value: unknown, depth: number): number => {
    if (typeof value !== 'object' || value === null) return 0;
    const known = heights.get(value);
    if (depth > MAX_LITERAL_DEPTH || (known !== undefined && depth + known > MAX_LITERAL_DEPTH)) {
      throw new RyeError(
        'PARSE_UNSAFE_CONTENT',
        `Cannot parse ${format} in ${source}: nesting is deeper than ${MAX_LITERAL_DEPTH} levels or cyclic`,
        { source },
      );
    }
    if (known !== undefined) return known;
    let height = 0;
    for (const child of Object.values(value))
      height = Math.max(height, visit(child, depth + 1) + 1);
    heights.set(value, height);
    return height;
  };
  visit(root, 1);
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
