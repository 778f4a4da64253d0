import { hintFor, type ErrorCode, type RyeError } from '../errors/index.js';
import { redactTokens } from '../capabilities/index.js';
import type { OperationResult } from '../ops/index.js';
import { opsDoor } from './ops-door.js';

/** A `tools/call` result in the shape the SDK's `CallToolResult` takes. */
export interface McpCallResult {
  [key: string]: unknown;
  readonly content: { type: 'text'; text: string }[];
  readonly structuredContent: Record<string, unknown>;
  readonly isError: boolean;
}

/**
 * Map an operation result to MCP (THREADS.md §13): one text block holding the
 * JSON (for clients that show only text), the same document as
 * `structuredContent`, and `isError` exactly when `status` is `"error"`. Any
 * capability token in it is redacted first, in both parts. Pure.
 */
export function toCallResult(result: OperationResult): McpCallResult {
  const json = JSON.stringify(result);
  const text = redactTokens(json);
  return {
    content: [{ type: 'text', text }],
    // Parsed back only when something was redacted: the result is plain JSON already.
    structuredContent: (text === json ? result : JSON.parse(text)) as Record<string, unknown>,
    isError: result.status === 'error',
  };
}

/** The error result of a refusal raised outside an operation (unknown tool, ceiling, shutdown). */
export async function refusalResult(error: RyeError, itemId?: string): Promise<McpCallResult> {
  return toCallResult((await opsDoor()).errorResult(error, itemId));
}

/**
 * The error result of a bug: the call fails with INTERNAL_ERROR and its
 * message, never the stack (the stack goes to the server's log).
 */
export function internalErrorResult(error: unknown): McpCallResult {
  const code: ErrorCode = 'INTERNAL_ERROR';
  return toCallResult({
    status: 'error',
    error: {
      code,
      message: error instanceof Error ? error.message : String(error),
      hint: hintFor(code),
    },
  });
}
