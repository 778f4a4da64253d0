import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { RyeError, isRyeError } from '../errors/index.js';
import { parseItemId } from '../items/index.js';
import { readTextFileSync } from '../platform/index.js';
import { MAX_TOKEN_LENGTH } from '../capabilities/index.js';

/** Where a ceiling comes from: a signed directive, or a capability token. */
export type CeilingSource =
  | { readonly kind: 'directive'; readonly directiveId: string }
  | {
      readonly kind: 'token';
      readonly token: string;
      /** `RYE_CAP_TOKEN`, or the token file's path (never the token itself). */
      readonly origin: string;
    };

/** The environment variable that holds a capability token (THREADS.md §4). */
export const CAP_TOKEN_ENV = 'RYE_CAP_TOKEN';

/**
 * The ceilings a server runs under: `--ceiling` (a token file when the value
 * names an existing file, else a directive id) and `RYE_CAP_TOKEN` (when set
 * and not empty). Both apply when both are given. Nothing is verified here:
 * each call verifies again (`resolveAuthority`).
 *
 * @throws RyeError MCP_CEILING_INVALID (an unreadable or oversized token file,
 *   or a value that is neither a file nor a valid directive id)
 */
export function readCeilingSources(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): CeilingSource[] {
  const sources: CeilingSource[] = [];
  if (option !== undefined) sources.push(ceilingOf(option, cwd));
  const envToken = env[CAP_TOKEN_ENV];
  if (envToken !== undefined && envToken !== '')
    sources.push({ kind: 'token', token: envToken.trim(), origin: CAP_TOKEN_ENV });
  return sources;
}

function ceilingOf(value: string, cwd: string): CeilingSource {
  const path = resolve(cwd, value);
  if (isFile(path)) {
    try {
      // Slack for a trailing newline and indentation; the token's own cap is checked on verify.
      const token = readTextFileSync(path, MAX_TOKEN_LENGTH + 1024).trim();
      return { kind: 'token', token, origin: path };
    } catch (error) {
      throw invalid(`the token file ${path} cannot be read`, { path }, error);
    }
  }
  try {
    return { kind: 'directive', directiveId: parseItemId(value) };
  } catch (error) {
    if (!isRyeError(error)) throw error;
    throw invalid(
      `"${value.slice(0, 200)}" is neither a token file nor a directive id (${error.message})`,
      { value: value.slice(0, 200) },
      error,
    );
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function invalid(why: string, details: Record<string, unknown>, cause: unknown): RyeError {
  return new RyeError('MCP_CEILING_INVALID', `Cannot use the ceiling: ${why}`, details, { cause });
}
