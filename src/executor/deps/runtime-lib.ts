import { stat } from 'node:fs/promises';
import { ITEM_EXTENSIONS } from '../../items/index.js';
import type { TrustSet } from '../../integrity/index.js';
import type { VerifyDepsConfig } from '../types.js';
import { verifyDependencies, type DepsReport, type VerifiedFileCache } from './verify-deps.js';

/**
 * How a runtime library folder (`anchor.lib`) is verified: every file that can
 * carry a signature, recursively. Runtime libraries are code the runtime puts
 * on the tool's path or command line, so they are checked on every run
 * (cached by content), whether or not the tool's own anchor applies.
 */
export const RUNTIME_LIB_DEPS: VerifyDepsConfig = {
  enabled: true,
  scope: 'tool_dir',
  recursive: true,
  extensions: ITEM_EXTENSIONS.tool,
  excludeDirs: ['__pycache__', 'node_modules', '.git'],
};

/**
 * Verify the runtime library folder, or return null when the chain declares
 * none or the folder does not exist (a runtime whose lib is missing simply
 * has nothing there to load). Every file is verified as the runtime
 * `runtimeId` that declares the library: a key scoped for a project tool
 * cannot vouch for a runtime's code.
 *
 * @throws RyeError the INTEGRITY_* code of the first file that fails.
 */
export async function verifyRuntimeLib(
  libPath: string,
  trust: TrustSet,
  cache: VerifiedFileCache,
  runtimeId: string | null = null,
): Promise<DepsReport | null> {
  if (libPath === '') return null;
  try {
    if (!(await stat(libPath)).isDirectory()) return null;
  } catch {
    return null;
  }
  const subject = runtimeId === null ? null : { itemId: runtimeId, itemType: 'tool' as const };
  return verifyDependencies({ base: libPath, config: RUNTIME_LIB_DEPS, trust, cache, subject });
}
