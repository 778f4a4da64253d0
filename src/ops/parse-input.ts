import type { z } from 'zod';
import { RyeError } from '../errors/index.js';
import type { OperationName } from './schemas.js';

/**
 * Parse an operation's input from outside (a model's tool call, an MCP
 * request, CLI flags): every problem listed, unknown keys refused.
 *
 * @throws RyeError OPERATION_INPUT_INVALID with `details.issues`
 */
export function parseOperationInput<S extends z.ZodType>(
  operation: OperationName | 'wait_threads' | 'cancel_thread',
  schema: S,
  input: unknown,
): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(input)',
    message: issue.message,
  }));
  throw new RyeError(
    'OPERATION_INPUT_INVALID',
    `Cannot ${operation}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    { operation, issues },
  );
}
