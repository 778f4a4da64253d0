import { RyeError } from '../errors/index.js';
import {
  extractMetadata,
  identityIssues,
  itemName,
  type DirectiveMetadata,
  type ItemMetadata,
  type ItemType,
  type KnowledgeMetadata,
  type ToolMetadata,
  type ValidationIssue,
} from '../items/index.js';
import { readSimpleKnowledgeMetadata } from './front-matter.js';

/** Longest title, description or category shown in a result (characters). */
const MAX_TITLE = 256;
const MAX_DESCRIPTION = 2048;
const MAX_KEYWORDS = 1024;

/** What search results and listings show of an item. */
export interface ItemSummary {
  readonly version: string | null;
  readonly title: string | null;
  readonly description: string | null;
  readonly category: string | null;
  /** Extra searchable words (knowledge `tags`), indexed with the description. */
  readonly keywords: string;
}

/** One item's metadata, read from its body (signature line removed) without executing anything. */
export interface MetadataReading {
  /** The parsed metadata, JSON-safe: what `loadItem` returns. */
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly summary: ItemSummary;
  /**
   * Where the signed metadata names another id than the one the file resolved
   * as (`identityIssues`: name, category); empty when it agrees or the file
   * has no identity to check (a tool's helper module).
   */
  readonly identity: readonly ValidationIssue[];
}

/**
 * Reads one item type's metadata. The directive reader is the one to swap
 * for the full directive parser: nothing else depends on its output shape.
 *
 * @throws RyeError METADATA_PARSE_FAILED, PARSE_UNSAFE_CONTENT
 */
export type MetadataReader = (
  body: string,
  extension: string,
  source: string,
  itemId: string,
) => Promise<MetadataReading>;

/** One reader per item type. */
export const METADATA_READERS: Readonly<Record<ItemType, MetadataReader>> = {
  directive: async (body, extension, source, itemId) => {
    const meta = await extractMetadata('directive', extension, body, source);
    return meta.kind === 'directive' ? readDirective(meta, itemId) : wrongKind(meta, source);
  },
  tool: async (body, extension, source, itemId) => {
    const meta = await extractMetadata('tool', extension, body, source);
    return meta.kind === 'tool' ? readTool(meta, itemId) : wrongKind(meta, source);
  },
  knowledge: async (body, extension, source, itemId) => {
    const meta =
      readSimpleKnowledgeMetadata(body, extension) ??
      (await extractMetadata('knowledge', extension, body, source));
    return meta.kind === 'knowledge' ? readKnowledge(meta, itemId) : wrongKind(meta, source);
  },
};

function wrongKind(meta: ItemMetadata, source: string): never {
  throw new RyeError(
    'INTERNAL_ERROR',
    `Cannot read ${source}: the parser returned ${meta.kind} metadata`,
  );
}

/**
 * A directive loads only when its program passes the grammar that `rye sign`
 * enforces (docs/directives.md): an unknown element, limit, permission verb or
 * hook event is a refusal here too, never silently dropped.
 */
function readDirective(meta: DirectiveMetadata, itemId: string): MetadataReading {
  const issues = meta.programIssues ?? [];
  if (issues.length > 0 || meta.program === undefined)
    throw new RyeError(
      'VALIDATION_FAILED',
      `Cannot load directive ${itemId}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ') || 'its program could not be parsed'}`,
      { item_id: itemId, issues },
    );
  return {
    metadata: {
      name: meta.name ?? null,
      version: meta.version ?? null,
      description: meta.description ?? null,
      category: meta.category ?? null,
      author: meta.author ?? null,
      sections: meta.sections,
      program: meta.program,
    },
    summary: {
      version: text(meta.version, MAX_TITLE),
      title: text(meta.name, MAX_TITLE) ?? itemName(itemId),
      description: text(meta.description, MAX_DESCRIPTION),
      category: text(meta.category, MAX_TITLE),
      keywords: '',
    },
    identity: identityOf(meta, itemId),
  };
}

function readTool(meta: ToolMetadata, itemId: string): MetadataReading {
  const { fields } = meta;
  return {
    metadata: { entry_point: meta.isEntryPoint, ...fields, extra: meta.extra },
    summary: {
      version: text(fields.version, MAX_TITLE),
      title: itemName(itemId),
      description: text(fields.description, MAX_DESCRIPTION),
      category: text(fields.category, MAX_TITLE),
      keywords: '',
    },
    // A helper module or config file is signed without identity (sign's rule).
    identity: meta.isEntryPoint ? identityOf(meta, itemId) : [],
  };
}

function readKnowledge(meta: KnowledgeMetadata, itemId: string): MetadataReading {
  const { fields } = meta;
  const tags = fields['tags'];
  const keywords = Array.isArray(tags)
    ? tags.filter((t): t is string => typeof t === 'string').join(' ')
    : (text(tags, MAX_KEYWORDS) ?? '');
  return {
    metadata: fields,
    summary: {
      version: text(fields['version'], MAX_TITLE),
      title:
        text(fields['title'], MAX_TITLE) ?? text(fields['name'], MAX_TITLE) ?? itemName(itemId),
      description: text(fields['description'] ?? fields['summary'], MAX_DESCRIPTION),
      category: text(fields['category'], MAX_TITLE),
      keywords: keywords.slice(0, MAX_KEYWORDS),
    },
    identity: identityOf(meta, itemId),
  };
}

function identityOf(meta: ItemMetadata, itemId: string): readonly ValidationIssue[] {
  return identityIssues(meta, itemId);
}

/** A string (or number, as YAML may read `version: 1.0`) cut to `max` characters, else null. */
function text(value: unknown, max: number): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value.trim() === '') return null;
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}
