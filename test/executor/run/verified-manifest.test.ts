/**
 * The verified manifest (src/executor/run/verified-manifest.ts): one new private
 * file per run in the temp folder, named from the process id and the clock.
 * A name someone took first, as a file or as a link, is left alone: the
 * manifest goes to a random name instead.
 */
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  removeVerifiedManifest,
  writeVerifiedManifest,
} from '../../../src/executor/run/verified-manifest.js';
import { makeTempSpaces } from '../../helpers/temp-space.js';

const FILES = [{ absolutePath: '/p/.ai/tools/t/a.py', rawSha256: 'ab'.repeat(32) }];
const CLOCK = 123_456_789n;

/** The name the manifest takes first while the clock reads CLOCK. */
const firstName = `rye-run-${process.pid.toString(36)}-${CLOCK.toString(36)}.json`;

function tempFolder(): string {
  const tmp = join(makeTempSpaces().root, 'tmp');
  mkdirSync(tmp);
  vi.stubEnv('TMPDIR', tmp);
  return tmp;
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('writeVerifiedManifest()', () => {
  it('writes the hashes to a new file only its owner can read, and removes it', async () => {
    const tmp = tempFolder();
    vi.spyOn(process.hrtime, 'bigint').mockReturnValue(CLOCK);
    const path = await writeVerifiedManifest(FILES);
    expect(path).toBe(join(tmp, firstName));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      files: { '/p/.ai/tools/t/a.py': 'ab'.repeat(32) },
    });
    await removeVerifiedManifest(path);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('leaves a file squatting its name alone and writes to a random name', async () => {
    const tmp = tempFolder();
    vi.spyOn(process.hrtime, 'bigint').mockReturnValue(CLOCK);
    writeFileSync(join(tmp, firstName), 'planted');
    const path = await writeVerifiedManifest(FILES);
    expect(path).not.toBe(join(tmp, firstName));
    expect(path).toMatch(/rye-run-[0-9a-f]{32}\.json$/);
    expect(readFileSync(join(tmp, firstName), 'utf8')).toBe('planted');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      files: { '/p/.ai/tools/t/a.py': 'ab'.repeat(32) },
    });
    await removeVerifiedManifest(path);
    expect(readdirSync(tmp)).toEqual([firstName]);
  });

  it('never writes through a link squatting its name', async () => {
    const tmp = tempFolder();
    vi.spyOn(process.hrtime, 'bigint').mockReturnValue(CLOCK);
    const target = join(tmp, 'target');
    symlinkSync(target, join(tmp, firstName));
    const path = await writeVerifiedManifest(FILES);
    expect(path).not.toBe(join(tmp, firstName));
    expect(lstatSync(join(tmp, firstName)).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(tmp, firstName))).toBe(target);
    expect(readdirSync(tmp).sort()).toEqual([firstName, path.slice(tmp.length + 1)].sort());
    await removeVerifiedManifest(path);
  });
});
