import type { SubprocessResult } from '../types.js';

/** What a finished subprocess means for the caller. */
export interface ToolOutcome {
  readonly success: boolean;
  /** The tool's JSON, or `{stdout, stderr, return_code}` when it printed none. */
  readonly data: unknown;
  /** Why it failed, when it did. */
  readonly reason: string | null;
}

/**
 * Interpret a tool's output: JSON on stdout becomes `data` (a top-level
 * `"success": false` makes the call fail); anything else is passed through as
 * stdout, stderr and the exit code. A non-zero exit always fails.
 */
export function interpretOutput(result: SubprocessResult): ToolOutcome {
  const raw = { stdout: result.stdout, stderr: result.stderr, return_code: result.returnCode };
  if (result.timedOut) return { success: false, data: raw, reason: 'timed out' };
  if (result.cancelled) return { success: false, data: raw, reason: 'cancelled' };
  const parsed = result.stdoutTruncated ? undefined : tryJson(result.stdout);
  const exitedOk = result.returnCode === 0;
  if (parsed === undefined) {
    return {
      success: exitedOk,
      data: raw,
      reason: exitedOk ? null : exitReason(result),
    };
  }
  const reportedFailure =
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    (parsed as Record<string, unknown>)['success'] === false;
  if (reportedFailure)
    return {
      success: false,
      data: parsed,
      reason: describeFailure(parsed as Record<string, unknown>),
    };
  return { success: exitedOk, data: parsed, reason: exitedOk ? null : exitReason(result) };
}

function tryJson(text: string): unknown {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

function exitReason(result: SubprocessResult): string {
  return result.signal !== null
    ? `killed by ${result.signal}`
    : `exited with code ${String(result.returnCode)}`;
}

function describeFailure(data: Record<string, unknown>): string {
  const error = data['error'];
  if (typeof error === 'string') return error;
  if (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as Record<string, unknown>)['message'] === 'string'
  ) {
    return (error as Record<string, string>)['message'] ?? 'reported "success": false';
  }
  return 'reported "success": false';
}
