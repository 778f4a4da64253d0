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
 * One new file (`wx`: never an existing file or a link, mode 0600, a random
 * name), not a private folder holding it: a folder costs a block allocated
 * and freed on every run, 1–3 ms on ext4 when the previous run's was just
 * freed. Nobody else can read the file, nor replace it where the temp folder
 * is sticky, as with the folder.
 */
export async function writeVerifiedManifest(
  files: readonly { readonly absolutePath: string; readonly rawSha256: string }[],
): Promise<string> {
  const entries: Record<string, string> = {};
  for (const f of files) entries[f.absolutePath] = f.rawSha256;
  const path = join(tmpdir(), `rye-run-${randomBytes(8).toString('hex')}.json`);
  // Synchronous: one tiny call on every run, cheaper than a thread-pool trip.
  writeFileSync(path, JSON.stringify({ files: entries }), { mode: 0o600, flag: 'wx' });
  if (!exitHooked) {
    // A process that exits mid-run (the CLI's SIGINT/SIGTERM handler calls
    // process.exit) removes what it still has: 'exit' listeners run then.
    exitHooked = true;
    process.once('exit', removeLive);
  }
  live.add(path);
  return path;
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
