import type { InProcessTool } from '../../executor/index.js';

/** The bundler's tool id (system space). */
export const BUNDLER_TOOL_ID = 'rye/core/bundler/bundler';

/**
 * The body of `rye/core/bundler/bundler`, run in rye's process
 * (CONTAINMENT.md §1.8): creating a bundle signs its manifest with the user's
 * key, which no tool process ever holds. The same code as `rye bundle …`,
 * reporting as the tool file does (`{success, ...}`; a failed check is the
 * tool's failure with the check's message).
 */
export const bundlerInProcess: InProcessTool = async ({ spaces, params }) => {
  const { runBundlerAction } = await import('../../bundle/index.js');
  const result = await runBundlerAction(spaces, params);
  if (result.ok !== false) return { ok: true, data: { success: true, ...result } };
  const message = result.message ?? 'bundle check failed';
  return { ok: false, data: { ...result, success: false, error: message }, message };
};
