import type { InProcessTool } from '../../executor/index.js';
import type { RegistryParams } from './actions.js';

/** The registry client's tool id (system space). */
export const REGISTRY_TOOL_ID = 'rye/core/registry/registry';

/**
 * The body of `rye/core/registry/registry`, run in rye's process
 * (CONTAINMENT.md §1.8): pushing signs with the user's key and sends the
 * user's registry login, neither of which a tool process ever holds. The
 * same code as `rye registry …`, loaded on first use.
 */
export const registryInProcess: InProcessTool = async ({ spaces, params, env, prepareToPin }) => {
  const { runRegistryAction } = await import('./actions.js');
  const result = await runRegistryAction(spaces, params as RegistryParams, { env, prepareToPin });
  return { ok: true, data: { success: true, ...result } };
};
