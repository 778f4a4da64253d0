import { exitCodeFor, hintFor, isRyeError, type ErrorCode } from '../errors/index.js';
import type { CommandContext } from './context.js';

/** Print a command's result: the JSON document, or the human lines. */
export function emit(
  ctx: Pick<CommandContext, 'json' | 'io'>,
  document: unknown,
  lines: readonly string[],
): void {
  if (ctx.json) ctx.io.stdout(JSON.stringify(document, null, 2) + '\n');
  else if (lines.length > 0) ctx.io.stdout(lines.join('\n') + '\n');
}

/** The JSON shape of an error: `{ok: false, error: {code, message, hint, details}}`. */
export function errorDocument(code: ErrorCode, message: string, details: unknown = {}): unknown {
  return { ok: false, error: { code, message, hint: hintFor(code), details } };
}

/**
 * Report a thrown error and return the exit code: RyeError codes map to 1, 2
 * or 3; anything else is an internal error (1) with its stack on stderr.
 */
export function reportError(ctx: Pick<CommandContext, 'json' | 'io'>, error: unknown): number {
  if (isRyeError(error)) {
    if (ctx.json)
      ctx.io.stdout(
        JSON.stringify(errorDocument(error.code, error.message, error.details), null, 2) + '\n',
      );
    else
      ctx.io.stderr(
        `error[${error.code}]: ${error.message}\n${detailLines(error.details)}hint: ${hintFor(error.code)}\n`,
      );
    return exitCodeFor(error.code);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (ctx.json)
    ctx.io.stdout(JSON.stringify(errorDocument('INTERNAL_ERROR', message), null, 2) + '\n');
  else
    ctx.io.stderr(
      `error[INTERNAL_ERROR]: ${message}\n${error instanceof Error ? (error.stack ?? '') : ''}\n`,
    );
  return exitCodeFor('INTERNAL_ERROR');
}

function detailLines(details: Readonly<Record<string, unknown>>): string {
  const issues = details['issues'];
  if (!Array.isArray(issues)) return '';
  return issues
    .map((i: { field?: string; message?: string }) => `  - ${i.field ?? ''}: ${i.message ?? ''}\n`)
    .join('');
}
