import { randomBytes } from 'node:crypto';
import { mkdirSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Write the files verified before the spawn, with the SHA-256 of their raw
 * bytes, to a private temp file: runtime libraries that load files later
 * (module_loader.py) check every load against it, closing the gap between
 * verification and use. Returns the path (RYE_VERIFIED_MANIFEST).
 */
export async function writeVerifiedManifest(
  files: readonly { readonly absolutePath: string; readonly rawSha256: string }[],
): Promise<string> {
  const entries: Record<string, string> = {};
  for (const f of files) entries[f.absolutePath] = f.rawSha256;
  const dir = join(tmpdir(), `rye-run-${randomBytes(8).toString('hex')}`);
  // Synchronous: two tiny calls on every run, cheaper than two thread-pool trips.
  mkdirSync(dir, { mode: 0o700 });
  const path = join(dir, 'verified.json');
  writeFileSync(path, JSON.stringify({ files: entries }), { mode: 0o600 });
  return path;
}

/** Remove a manifest written by {@link writeVerifiedManifest}. */
export async function removeVerifiedManifest(path: string): Promise<void> {
  // The file then its folder: a recursive rmSync loads Node's rimraf (~1 ms)
  // for what is nearly always one file. Anything else there (the tool knows
  // the path) falls back to the recursive removal.
  try {
    unlinkSync(path);
    rmdirSync(dirname(path));
  } catch {
    rmSync(dirname(path), { recursive: true, force: true });
  }
}
