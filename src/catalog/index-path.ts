import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDirOf } from '../executor/index.js';
import { sha256Hex } from '../integrity/index.js';
import type { Spaces } from '../items/index.js';

/**
 * Where the search index of one set of spaces lives:
 * `<cache>/search/<sha256(realpath(project) \n user \n system)>.db`, `<cache>`
 * being the executor's cache root (`RYE_CACHE_DIR`, else `<user>/.ai/cache`).
 * One file per project and spaces, so two projects never share rows.
 */
export function searchIndexPath(
  spaces: Spaces,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const key = sha256Hex(`${realOrSame(spaces.project)}\n${spaces.user}\n${spaces.system}`);
  return join(cacheDirOf(spaces.user, env), 'search', `${key}.db`);
}

function realOrSame(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
