/**
 * Find a bare command name (`python3`, `node`) on PATH the way a careful shell
 * would, so that a spawn is always handed an absolute path and never does a
 * PATH lookup of its own. The only I/O is probing files; nothing is executed.
 * Probes are synchronous: a stat and an access each, which cost less than the
 * thread-pool trips of their promise forms, on every tool run.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

const isWindows = process.platform === 'win32';

/** An existing regular file this process may execute (Windows: that exists). */
export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!statSync(path).isFile()) return false;
    // Windows has no execute bit; X_OK there only tests existence.
    accessSync(path, isWindows ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** True for a name without any path separator, which a spawn would look up on PATH. */
export function isBareCommand(command: string): boolean {
  return !/[\\/]/.test(command);
}

/**
 * The absolute folders of a PATH value, in order, without duplicates. Empty
 * and relative entries are dropped: they name the working directory (the
 * project, or a tool's folder), which would let the project supply the binary.
 */
export function absolutePathDirs(pathValue: string | undefined): string[] {
  const dirs = (pathValue ?? '').split(delimiter).filter((dir) => dir !== '' && isAbsolute(dir));
  return [...new Set(dirs)];
}

/** Names to try for `name` (on win32 also `.exe`, `.cmd`). */
export function executableNames(name: string): string[] {
  return isWindows ? [name, `${name}.exe`, `${name}.cmd`] : [name];
}

/**
 * The first executable regular file named `name` in the absolute folders of
 * `pathValue`, or null. `probed` receives every file tried.
 */
export async function findOnPath(
  name: string,
  pathValue: string | undefined,
  probed: string[] = [],
): Promise<string | null> {
  for (const dir of absolutePathDirs(pathValue)) {
    for (const candidate of executableNames(name)) {
      const file = join(dir, candidate);
      probed.push(file);
      if (await isExecutableFile(file)) return file;
    }
  }
  return null;
}
