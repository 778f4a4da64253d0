/**
 * System tools run in rye's process once they verified like any tool
 * (CONTAINMENT.md §1.8): the bundler and the registry client, which sign
 * with the user's key, which no tool process ever holds.
 */
import { isRyeError } from '../../errors/index.js';
import type { Spaces } from '../../items/index.js';
import type { PrepareToPin } from '../../lockfile/index.js';
import type { Outcome } from './outcome.js';

/**
 * A system tool's body, run in rye's process with the tool's checked params
 * (its signed file is verified, its chain pinned, its params validated first).
 * `prepareToPin` is this executor's verification of a tool for its lockfile,
 * for a body that pins one (the registry client's pull).
 */
export type InProcessTool = (run: {
  readonly spaces: Spaces;
  readonly params: Readonly<Record<string, unknown>>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly prepareToPin: PrepareToPin;
}) => Promise<{ readonly ok: boolean; readonly data: unknown; readonly message?: string }>;

/**
 * Run a system tool's body in this process: its result is the tool's data
 * (`{success: true, ...}`), a refusal is EXECUTE_TOOL_FAILED with the
 * body's message, as the tool file itself reports.
 */
export async function runInProcess(
  body: InProcessTool,
  run: Parameters<InProcessTool>[0] & { readonly toolId: string },
): Promise<Outcome> {
  try {
    const result = await body(run);
    if (result.ok) return { status: 'success', data: result.data };
    return {
      status: 'error',
      data: result.data,
      error: {
        code: 'EXECUTE_TOOL_FAILED',
        message: `Tool ${run.toolId} failed: ${result.message ?? 'failed'}`,
      },
    };
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return {
      status: 'error',
      data: { success: false, error: error.message, code: error.code },
      error: {
        code: 'EXECUTE_TOOL_FAILED',
        message: `Tool ${run.toolId} failed: ${error.message}`,
      },
    };
  }
}
