import { z } from 'zod';

/*
 * One schema per operation (THREADS.md §1, §2, §13). The model's tool
 * definitions (z.toJSONSchema), the MCP server's input and output schemas and
 * the CLI's --json documents all come from here. Every input object is strict:
 * a call cannot smuggle `capabilities`, `limits` or a parent id.
 */

const MAX_ID = 512;

export const itemTypeSchema = z
  .enum(['tool', 'directive', 'knowledge'])
  .describe('the kind of item: tool (code that runs), directive (a workflow), knowledge');
export const spaceSchema = z
  .enum(['project', 'user', 'system'])
  .describe('where the item lives: the project .ai/, the user space, the shipped system space');
const itemId = z
  .string()
  .min(1)
  .max(MAX_ID)
  .describe('the item id: slash-separated segments, e.g. apps/task-manager/build');
const jsonObject = z.record(z.string(), z.unknown());

export const executeInputSchema = z.strictObject({
  item_type: itemTypeSchema,
  item_id: itemId,
  parameters: jsonObject.optional().describe('a tool’s parameters (its config_schema)'),
  inputs: jsonObject.optional().describe('a directive’s inputs (its <inputs>)'),
  thread: z
    .enum(['wait', 'spawn'])
    .optional()
    .describe(
      'directives: wait for the child thread’s outputs (default) or spawn it and return its id',
    ),
  dry_run: z.boolean().optional().describe('verify and plan without running anything'),
});

export const searchInputSchema = z.strictObject({
  query: z.string().max(1024).describe('words to look for in ids, titles, descriptions and bodies'),
  item_type: itemTypeSchema.optional(),
  space: spaceSchema.optional(),
  limit: z.number().int().min(1).max(100).optional().describe('at most this many results (20)'),
});

export const loadInputSchema = z.strictObject({
  item_type: itemTypeSchema,
  item_id: itemId,
  source: spaceSchema.optional().describe('load from this space only'),
});

export const signInputSchema = z.strictObject({
  item_type: itemTypeSchema,
  item_id: itemId.describe('an item id, or a prefix/* pattern to sign every item below it'),
  source: spaceSchema.optional().describe('sign in this space only (default: project)'),
});

export const errorSchema = z.object({
  code: z.string(),
  message: z.string(),
  hint: z.string().optional(),
  details: z.unknown().optional(),
});

/** The result every operation returns, on MCP, in a thread and from `--json`. */
export const operationResultSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('success'),
    item_id: z.string(),
    data: z.unknown(),
    thread_id: z.string().optional(),
    cost: z.unknown().optional(),
  }),
  z.object({ status: z.literal('error'), item_id: z.string().optional(), error: errorSchema }),
]);

export type ExecuteInput = z.infer<typeof executeInputSchema>;
export type SearchInput = z.infer<typeof searchInputSchema>;
export type LoadInput = z.infer<typeof loadInputSchema>;
export type SignInput = z.infer<typeof signInputSchema>;
export type OperationResult = z.infer<typeof operationResultSchema>;
export type OperationName = 'execute' | 'search' | 'load' | 'sign';

export const OPERATION_SCHEMAS = {
  execute: executeInputSchema,
  search: searchInputSchema,
  load: loadInputSchema,
  sign: signInputSchema,
} as const;
