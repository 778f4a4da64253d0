import { z } from 'zod';
import type { ToolDefinition } from '../conversation/index.js';
import {
  executeInputSchema,
  loadInputSchema,
  searchInputSchema,
  signInputSchema,
} from '../../ops/index.js';

/** Above this many permitted ids, `item_id` describes the patterns instead of listing ids. */
export const MAX_ITEM_ENUM = 64;

/** The ids one operation may name (THREADS.md §2, "item_id schema"). */
export interface IdOffer {
  /** Concrete ids the grants match, or null when the set is infinite or over MAX_ITEM_ENUM. */
  readonly ids: readonly string[] | null;
  /** The grants as capability strings, for the description when there is no enum. */
  readonly patterns: readonly string[];
}

/** What a thread is offered, computed at admission. */
export interface ToolOffer {
  readonly execute: IdOffer;
  readonly load: IdOffer;
  /** `rye_sign` is offered only when this is not null (the set holds a sign grant). */
  readonly sign: IdOffer | null;
  /** The directive's return schema; `directive_return` is offered only when outputs are declared. */
  readonly returnSchema: Record<string, unknown> | null;
}

type JsonSchema = Record<string, unknown>;

/** The schema as the provider sees it: draft 2020-12 without the `$schema` marker. */
function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema) as JsonSchema;
  return rest;
}

/** The `item_id` property narrowed to the offer: an enum, or a description of the patterns. */
function withItemIds(schema: JsonSchema, offer: IdOffer): JsonSchema {
  const properties = schema['properties'] as Record<string, JsonSchema>;
  const itemId = properties['item_id'];
  if (itemId === undefined) return schema;
  const narrowed =
    offer.ids !== null
      ? { ...itemId, enum: [...offer.ids].sort() }
      : {
          ...itemId,
          description: `${String(itemId['description'])}. Permitted: ${offer.patterns.join(', ') || 'nothing'}`,
        };
  return { ...schema, properties: { ...properties, item_id: narrowed } };
}

/**
 * The provider tools of a thread, in a fixed order: the four operations
 * (`rye_sign` only with a sign grant) and `directive_return` when outputs are
 * declared. The enum guides the model; the capability check decides.
 */
export function toolDefinitions(offer: ToolOffer): ToolDefinition[] {
  const tools: ToolDefinition[] = [
    {
      name: 'rye_execute',
      description:
        'Run a tool, or a directive as a child thread, through its verified chain. Directives take `inputs` and `thread` ("wait" returns its outputs, "spawn" its thread id); tools take `parameters`.',
      input_schema: withItemIds(jsonSchemaOf(executeInputSchema), offer.execute),
    },
    {
      name: 'rye_search',
      description:
        'Search the items you may use by words in their ids, titles, descriptions and bodies. Each result says whether it verifies.',
      input_schema: jsonSchemaOf(searchInputSchema),
    },
    {
      name: 'rye_load',
      description: 'Read a verified item: its content and metadata. Unverified items are refused.',
      input_schema: withItemIds(jsonSchemaOf(loadInputSchema), offer.load),
    },
  ];
  if (offer.sign !== null)
    tools.push({
      name: 'rye_sign',
      description: 'Sign an item (or every item under a prefix/* pattern) with the user key.',
      input_schema: withItemIds(jsonSchemaOf(signInputSchema), offer.sign),
    });
  if (offer.returnSchema !== null)
    tools.push({
      name: 'directive_return',
      description:
        'Finish the directive: return its outputs. Call it once, when the work is done or has failed.',
      input_schema: offer.returnSchema,
    });
  return tools;
}
