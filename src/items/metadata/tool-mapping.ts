import { RyeError } from '../../errors/index.js';
import { MAX_LITERAL_DEPTH } from './literal-cursor.js';
import { TOOL_FIELDS } from './types.js';
import type { ToolField, ToolMetadata } from './types.js';

/**
 * Either of these makes a file an entry point rather than a dependency. Not
 * `version` or `description`: a package.json or a Python package's __init__.py
 * carries those without being a tool.
 */
const ENTRY_POINT_FIELDS: readonly ToolField[] = ['tool_type', 'executor_id'];

/** A tool's metadata from its fields; an entry point when it sets tool_type or executor_id. */
export function toolMetadataOf(
  fields: Partial<Record<ToolField, unknown>>,
  extra: Record<string, unknown>,
): ToolMetadata {
  const isEntryPoint = ENTRY_POINT_FIELDS.some((field) => Object.hasOwn(fields, field));
  return { kind: 'tool', isEntryPoint, fields, extra };
}

/**
 * A parsed YAML or JSON tool document → metadata: its top-level keys named in
 * TOOL_FIELDS are the fields, the others go to `extra` (JSON's `_signature` is
 * dropped); a document that is not a mapping is a dependency with no fields.
 *
 * @throws RyeError PARSE_UNSAFE_CONTENT for data nested deeper than
 *   MAX_LITERAL_DEPTH containers, or cyclic.
 */
export function toolMetadataFromMapping(
  doc: unknown,
  source: string,
  format: 'YAML' | 'JSON',
): ToolMetadata {
  const fields: Partial<Record<ToolField, unknown>> = {};
  const extra = Object.create(null) as Record<string, unknown>;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return toolMetadataOf(fields, extra);
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
  return toolMetadataOf(fields, extra);
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
