import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathOfFileUrl } from './file-url.js';

let cached: string | undefined;

/** The installed package's root folder (where its package.json is). */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(pathOfFileUrl(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('Cannot find the rye package root');
    dir = parent;
  }
  cached = dir;
  return dir;
}
