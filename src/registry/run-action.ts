import type { Spaces } from '../items/index.js';
import type { PrepareToPin } from '../lockfile/index.js';
import {
  runRegistryAction as runClientAction,
  type RegistryActionOptions,
  type RegistryParams,
  type RegistryResult,
} from './client/index.js';

/**
 * The executor's verification of a pulled tool for its lockfile, loaded only
 * when a pull pins a tool: the client never imports the executor, and a
 * command that pins nothing never loads it.
 */
const prepareToPin: PrepareToPin = async (spaces, toolId, trust) =>
  (await import('../executor/index.js')).prepareToPin(spaces, toolId, trust);

/**
 * Run one registry action as `rye registry …` does: the client's
 * `runRegistryAction` with the executor's verification plugged in, so a
 * pulled tool is pinned in a lockfile (`options.prepareToPin` replaces it).
 *
 * @throws RyeError the codes of the registry client's runRegistryAction.
 */
export function runRegistryAction(
  project: string | Spaces,
  params: RegistryParams,
  options: RegistryActionOptions = {},
): Promise<RegistryResult> {
  return runClientAction(project, params, { prepareToPin, ...options });
}
