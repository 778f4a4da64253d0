import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  generateKeyFiles,
  readSigner,
  signText,
  type Signer,
  type TrustedKey,
} from '../../src/integrity/index.js';
import { keyDir, type SpaceName, type Spaces } from '../../src/items/index.js';
import {
  findNewerOwnLockfile,
  lockfileDir,
  readOwnKey,
  serializeLockfile,
  type Lockfile,
} from '../../src/lockfile/index.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const TOOL = 'web/scraper';

function lockOf(toolId: string, version: string): Lockfile {
  const integrity = 'a'.repeat(64);
  return {
    lockfileVersion: 1,
    generatedAt: '2026-02-11T00:00:00Z',
    root: { toolId, version, integrity },
    resolvedChain: [
      { itemId: toolId, space: 'project', toolType: 'python', executorId: null, integrity },
    ],
    registry: null,
    signature: null,
  };
}

interface Setup {
  spaces: Spaces;
  own: TrustedKey;
  signer: Signer;
  root: string;
}

async function setup(): Promise<Setup> {
  const t = makeTempSpaces();
  const spaces = { project: t.project, user: t.user, system: t.system };
  await generateKeyFiles(keyDir(spaces));
  return {
    spaces,
    own: readOwnKey(spaces) as TrustedKey,
    signer: await readSigner(keyDir(spaces)),
    root: t.root,
  };
}

/** Write `<space>/.ai/lockfiles/<name>` holding `lock`, signed by `signer` unless null. */
function place(
  s: Setup,
  space: SpaceName,
  lock: Lockfile,
  signer: Signer | null,
  name = `${lock.root.toolId}@${lock.root.version}.lock.json`,
): string {
  const text = serializeLockfile(lock);
  const path = join(lockfileDir(s.spaces, space), name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    signer === null ? text : signText(text, { itemType: 'tool', extension: '.json', signer }).text,
  );
  return path;
}

describe('findNewerOwnLockfile()', () => {
  it('finds a lockfile signed by the user’s key that pins a higher version, newest first', async () => {
    const s = await setup();
    place(s, 'project', lockOf(TOOL, '1.0.0'), s.signer);
    place(s, 'project', lockOf(TOOL, '1.10.0'), s.signer);
    const newest = place(s, 'project', lockOf(TOOL, '2.0.0'), s.signer);
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '1.2.0', s.own)).toEqual({
      path: newest,
      space: 'project',
      version: '2.0.0',
    });
  });

  it('orders by semver, not by text: 1.10.0 is newer than 1.9.0', async () => {
    const s = await setup();
    const path = place(s, 'user', lockOf(TOOL, '1.10.0'), s.signer);
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '1.9.0', s.own)).toMatchObject({ path });
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '1.10.0', s.own)).toBeNull();
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '1.10.1', s.own)).toBeNull();
  });

  it('counts a release as newer than its pre-releases, and ignores build metadata', async () => {
    const s = await setup();
    place(s, 'project', lockOf(TOOL, '2.0.0'), s.signer);
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '2.0.0-rc.1', s.own)).not.toBeNull();
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '2.0.0+build.7', s.own)).toBeNull();
  });

  it('ignores lockfiles not signed by the user’s own key, even by a key trusted elsewhere', async () => {
    const s = await setup();
    const otherDir = join(s.root, 'other');
    await generateKeyFiles(otherDir);
    place(s, 'project', lockOf(TOOL, '3.0.0'), await readSigner(otherDir));
    place(s, 'user', lockOf(TOOL, '4.0.0'), null);
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '1.0.0', s.own)).toBeNull();
  });

  it('ignores a file that does not parse or pins another tool or version under this name', async () => {
    const s = await setup();
    const dir = join(lockfileDir(s.spaces, 'project'), 'web');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'scraper@5.0.0.lock.json'), '{"lockfile_version": 1,');
    place(s, 'project', lockOf('web/other', '6.0.0'), s.signer, 'web/scraper@6.0.0.lock.json');
    place(s, 'project', lockOf(TOOL, '2.0.0'), s.signer, 'web/scraper@7.0.0.lock.json');
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '1.0.0', s.own)).toBeNull();
  });

  it('looks only at the tool’s own name: other tools and nested folders do not count', async () => {
    const s = await setup();
    place(s, 'project', lockOf('web/scraper2', '9.0.0'), s.signer);
    place(s, 'project', lockOf('web/scraper/sub', '9.0.0'), s.signer);
    place(s, 'project', lockOf('scraper', '9.0.0'), s.signer);
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '1.0.0', s.own)).toBeNull();
  });

  it('searches project, user and system lockfile folders', async () => {
    const s = await setup();
    const path = place(s, 'system', lockOf(TOOL, '2.0.0'), s.signer);
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '1.0.0', s.own)).toMatchObject({
      path,
      space: 'system',
    });
  });

  it('fails closed for a running version that is not semver; ignores lockfiles whose version is not', async () => {
    const s = await setup();
    place(s, 'project', lockOf(TOOL, '2.0'), s.signer);
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '1.0.0', s.own)).toBeNull();
    place(s, 'project', lockOf(TOOL, '0.0.1'), s.signer);
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '1.0', s.own)).toMatchObject({
      version: '0.0.1',
    });
  });

  it('finds nothing when there is no lockfile folder at all', async () => {
    const s = await setup();
    expect(await findNewerOwnLockfile(s.spaces, TOOL, '1.0.0', s.own)).toBeNull();
  });
});
