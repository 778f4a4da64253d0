import { z } from 'zod';
import type { OperationName } from '../ops/index.js';
import { opsDoor } from './ops-door.js';

/** The four tools, named after the operations (within `[a-zA-Z0-9_-]`, copilot-cli#1879). */
export const MCP_TOOL_NAMES: readonly OperationName[] = ['execute', 'search', 'load', 'sign'];

type JsonSchemaObject = { type: 'object' } & Record<string, unknown>;

/** One entry of `tools/list`, in the wire shape the SDK's `Tool` type takes. */
export interface McpToolDefinition {
  readonly name: OperationName;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  readonly outputSchema: JsonSchemaObject;
  readonly annotations: {
    readonly title: string;
    readonly readOnlyHint: boolean;
    readonly destructiveHint: boolean;
    readonly idempotentHint: boolean;
    readonly openWorldHint: boolean;
  };
}

const ABOUT: Record<OperationName, { title: string; description: string }> = {
  execute: {
    title: 'Execute a Rye item',
    description:
      'Verify a signed tool (its whole executor chain, dependencies and lockfile) and run it with `parameters`; ' +
      'anything unsigned, tampered or outside the capability ceiling is refused before it runs. ' +
      'A directive runs as a thread with `inputs` under its declared permissions ∩ the ceiling: ' +
      '`thread` "wait" (default) answers with its outputs, thread_id and cost (progress notifications ' +
      'stream when a progressToken is sent); "spawn" starts it in a detached worker and answers with its ' +
      'thread_id at once. `dry_run` verifies and plans (a directive: its first request and worst-case cost) ' +
      'without running anything. The tools rye/agent/threads/thread_status {thread_id} and ' +
      'rye/agent/threads/read_transcript {thread_id, from_seq?, limit?} read a thread.',
  },
  search: {
    title: 'Search Rye items',
    description:
      'Ranked full-text search over the directives, tools and knowledge of the project, user and system spaces. ' +
      'Each result carries its signature verdict; items the ceiling does not allow to search are left out.',
  },
  load: {
    title: 'Load a Rye item',
    description:
      'Return one item’s verified content and metadata (signature line removed). An item that is unsigned, ' +
      'tampered or signed by an untrusted key is refused with the verification error.',
  },
  sign: {
    title: 'Sign Rye items',
    description:
      'Validate and sign project (or user) items with the user’s key; `item_id` may be a `prefix/*` pattern. ' +
      'Every selected item must be allowed `sign` before any is written.',
  },
};

/** §13: execute changes the world; search and load only read; sign rewrites signature lines idempotently. */
const HINTS: Record<OperationName, Omit<McpToolDefinition['annotations'], 'title'>> = {
  execute: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  search: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  load: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  sign: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/**
 * A zod schema as the JSON Schema MCP clients read: draft-07 (what the SDK
 * client's Ajv compiles), in the schema's input form so the result union's
 * objects keep accepting the extra fields the operations add (`chain`,
 * `metadata`), exactly as the zod objects do. `$schema` is dropped (some
 * clients hand the schema to a model API that refuses it).
 */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'input',
  }) as Record<string, unknown>;
  return rest;
}

let cached: readonly McpToolDefinition[] | undefined;

/**
 * The `tools/list` answer: input schemas are the operations' own strict zod
 * schemas, the output schema is the shared result union (MCP requires an
 * object at the top, so `type: "object"` sits beside its `oneOf`). Computed
 * once.
 */
export async function mcpToolDefinitions(): Promise<readonly McpToolDefinition[]> {
  if (cached !== undefined) return cached;
  const { OPERATION_SCHEMAS, operationResultSchema } = await opsDoor();
  cached = MCP_TOOL_NAMES.map((name) => {
    const outputSchema = { type: 'object' as const, ...jsonSchemaOf(operationResultSchema) };
    return {
      name,
      title: ABOUT[name].title,
      description: ABOUT[name].description,
      inputSchema: { ...jsonSchemaOf(OPERATION_SCHEMAS[name]), type: 'object' as const },
      outputSchema,
      annotations: { title: ABOUT[name].title, ...HINTS[name] },
    };
  });
  return cached;
}

/** True when `name` is one of the four tools. */
export function isMcpToolName(name: string): name is OperationName {
  return (MCP_TOOL_NAMES as readonly string[]).includes(name);
}
