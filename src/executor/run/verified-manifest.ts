import { randomBytes } from 'node:crypto';
import { unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Write the files verified before the spawn, with the SHA-256 of their raw
 * bytes, to a private temp file: runtime libraries that load files later
 * (module_loader.py) check every load against it, closing the gap between
 * verification and use. Returns the path (RYE_VERIFIED_MANIFEST).
 *
 * One new file (`wx`: never an existing file or a link, mode 0600), not a
 * private folder holding it: a folder costs a block allocated and freed on
 * every run, 1–3 ms on ext4 when the previous run's was just freed. Nobody
 * else can read the file, nor replace it where the temp folder is sticky, as
 * with the folder.
 *
 * The name is this process's id and the monotonic clock in nanoseconds, not
 * random bytes: the first draw from OpenSSL's generator costs ~0.25 ms of a
 * run. The name protects nothing (`wx` and the mode do); it only has to be
 * free. One that is taken (squatted, or left by a process of the same id)
 * is replaced by a random one.
 */
export async function writeVerifiedManifest(
  files: readonly { readonly absolutePath: string; readonly rawSha256: string }[],
): Promise<string> {
  const entries: Record<string, string> = {};
  for (const f of files) entries[f.absolutePath] = f.rawSha256;
  const text = JSON.stringify({ files: entries });
  const name = `${process.pid.toString(36)}-${process.hrtime.bigint().toString(36)}`;
  let path = join(tmpdir(), `rye-run-${name}.json`);
  try {
    writeNew(path, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    path = join(tmpdir(), `rye-run-${randomBytes(16).toString('hex')}.json`);
    writeNew(path, text);
  }
  if (!exitHooked) {
    // A process that exits mid-run (the CLI's SIGINT/SIGTERM handler calls
    // process.exit) removes what it still has: 'exit' listeners run then.
    exitHooked = true;
    process.once('exit', removeLive);
  }
  live.add(path);
  return path;
}

/** Synchronous: one tiny call on every run, cheaper than a thread-pool trip. */
function writeNew(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
}

/** Manifests written and not yet removed by this process. */
const live = new Set<string>();
let exitHooked = false;

function removeLive(): void {
  for (const path of live) unlinkQuietly(path);
  live.clear();
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already, or the temp folder is not ours to clean: nothing to do at exit
  }
}

/** Remove a manifest written by {@link writeVerifiedManifest}. */
export async function removeVerifiedManifest(path: string): Promise<void> {
  live.delete(path);
  // unlinkSync, not rmSync: that loads Node's rimraf (~1 ms) for one file.
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
