/**
 * Whether tools run sandboxed (CONTAINMENT.md §1.2). Only the operator can
 * turn the sandbox off: `--no-sandbox` on the command line, or `sandbox: off`
 * in the user's own config (`<user space>/.ai/config.yaml`). Never a project
 * file, a directive, a tool's metadata, an MCP client or a model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RyeError } from '../../errors/index.js';

/** `bwrap`: every subprocess tool in a bubblewrap sandbox; `off`: the operator turned it off. */
export type SandboxMode = 'bwrap' | 'off';

/** The user config file that may say `sandbox: off`. */
export function userConfigPath(userSpace: string): string {
  return join(userSpace, '.ai', 'config.yaml');
}

const SETTING = /^sandbox[ \t]*:[ \t]*(\S*)[ \t]*(?:#.*)?$/m;

/**
 * The mode the user config chooses: `sandbox: off` (or `false`) turns it off;
 * `on`, `bwrap` or no setting keep it on. A file that is not there means on.
 *
 * @throws RyeError SANDBOX_CONFIG_INVALID for another value (failing closed:
 *   a typo never turns the sandbox off).
 */
export function readSandboxMode(userSpace: string): SandboxMode {
  const path = userConfigPath(userSpace);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'bwrap';
    throw new RyeError(
      'SANDBOX_CONFIG_INVALID',
      `Cannot read ${path}: ${(error as Error).message}`,
      {
        path,
      },
    );
  }
  const value = SETTING.exec(text)?.[1]?.replace(/^["']|["']$/g, '');
  if (value === undefined || value === 'on' || value === 'bwrap' || value === 'true')
    return 'bwrap';
  if (value === 'off' || value === 'false') return 'off';
  throw new RyeError(
    'SANDBOX_CONFIG_INVALID',
    `Cannot read ${path}: sandbox must be on or off, got ${JSON.stringify(value)}`,
    { path, value },
  );
}
