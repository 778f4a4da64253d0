/**
 * Write many files as close to all-or-nothing as a file system allows: every
 * file is first written and fsynced to a temp file beside its target, and only
 * when all of them are on disk are they renamed into place. A failure before
 * the renames removes the temp files and the folders made for them.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { messageOf } from '../../platform/index.js';

export interface FileWrite {
  readonly absolute: string;
  readonly bytes: Uint8Array;
}

/** @throws RyeError FILE_WRITE_FAILED (nothing of the batch is left behind). */
export async function writeAllOrNothing(writes: readonly FileWrite[]): Promise<void> {
  const createdDirs: string[] = [];
  const staged: { temp: string; target: string }[] = [];
  let current = '';
  try {
    for (const { absolute, bytes } of writes) {
      current = absolute;
      await makeParents(dirname(absolute), createdDirs);
      const temp = join(dirname(absolute), `.${randomBytes(6).toString('hex')}.tmp`);
      const handle = await open(temp, 'wx', 0o644);
      staged.push({ temp, target: absolute });
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  } catch (error) {
    for (const { temp } of staged) await rm(temp, { force: true }).catch(() => undefined);
    for (const dir of createdDirs.reverse()) await rmdir(dir).catch(() => undefined);
    throw new RyeError(
      'FILE_WRITE_FAILED',
      `Cannot write ${current}: ${messageOf(error)}; nothing was written`,
      { path: current },
      { cause: error },
    );
  }
  for (const { temp, target } of staged) {
    try {
      await rename(temp, target);
    } catch (error) {
      for (const s of staged) await rm(s.temp, { force: true }).catch(() => undefined);
      throw new RyeError(
        'FILE_WRITE_FAILED',
        `Cannot write ${target}: ${messageOf(error)}`,
        { path: target },
        { cause: error },
      );
    }
  }
}

/** mkdir -p that remembers each folder it made (outermost first). */
async function makeParents(dir: string, created: string[]): Promise<void> {
  const missing: string[] = [];
  for (let d = dir; !(await isDir(d)); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    await mkdir(d);
    created.push(d);
  }
}

async function isDir(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}
