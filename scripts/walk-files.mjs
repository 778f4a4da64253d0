// The regular files below a folder, recursively (links and special files are
// not followed or listed): what the CLI build scripts scan.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every regular file below `dir`, as a path joined onto `dir`. */
export function* walkFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walkFiles(path);
    else if (entry.isFile()) yield path;
  }
}
