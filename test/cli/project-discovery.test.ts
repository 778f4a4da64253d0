import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverProject } from '../../src/items/index.js';
import { rye } from '../helpers/cli.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

/** The project `rye trust list` resolved, run from `cwd` without --project. */
async function projectSeenFrom(s: TempSpaces, cwd: string): Promise<string> {
  const res = await rye(['trust', 'list', '--json'], { env: s.env, cwd });
  expect(res.code, res.stdout + res.stderr).toBe(0);
  return res.json<{ project: { project: string } }>().project.project;
}

function dir(...parts: string[]): string {
  const path = join(...parts);
  mkdirSync(path, { recursive: true });
  return path;
}

describe('project discovery without --project', () => {
  it('finds the nearest folder with .ai/ from a subfolder, like git', async () => {
    const s = makeTempSpaces();
    dir(s.project, '.ai', 'tools');
    const deep = dir(s.project, 'src', 'deep');
    expect(await projectSeenFrom(s, deep)).toBe(realpathSync(s.project));
    const nested = dir(s.project, 'packages', 'inner');
    dir(nested, '.ai');
    expect(await projectSeenFrom(s, dir(nested, 'lib'))).toBe(realpathSync(nested));
  });

  it('stops at the user space: its .ai/ is never taken for a project', async () => {
    const s = makeTempSpaces();
    dir(s.user, '.ai', 'keys');
    const work = dir(s.user, 'work', 'sub');
    expect(await projectSeenFrom(s, work)).toBe(realpathSync(work));
  });

  it('stops at a .ai that is a link, using the working directory', async () => {
    const s = makeTempSpaces();
    const elsewhere = dir(s.root, 'elsewhere', '.ai');
    symlinkSync(elsewhere, join(s.project, '.ai'));
    const sub = dir(s.project, 'sub');
    expect(await projectSeenFrom(s, sub)).toBe(realpathSync(sub));
  });

  it('takes the working directory when no folder above has .ai/', () => {
    const s = makeTempSpaces();
    const sub = dir(s.project, 'a', 'b');
    expect(discoverProject(sub, [s.user, s.root])).toEqual({ path: sub, how: 'default' });
    dir(s.project, '.ai');
    expect(discoverProject(sub, [s.user, s.root])).toEqual({ path: s.project, how: 'found' });
    // A stop is never looked at: the project folder itself as a stop hides its .ai/.
    expect(discoverProject(sub, [s.project])).toEqual({ path: sub, how: 'default' });
  });
});

describe('--project that is not a folder', () => {
  it('is a usage error naming the path (PROJECT_NOT_FOUND, exit 2), not ITEM_NOT_FOUND', async () => {
    const s = makeTempSpaces();
    const missing = join(s.root, 'does', 'not', 'exist');
    const res = await rye(['verify', 'tool', 'x', '--project', missing], { env: s.env });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error[PROJECT_NOT_FOUND]');
    expect(res.stderr).toContain(missing);
    const file = join(s.root, 'file');
    writeFileSync(file, 'x');
    const json = await rye(['bundle', 'list', '--project', file, '--json'], { env: s.env });
    expect(json.code).toBe(2);
    expect(json.json()).toMatchObject({ ok: false, error: { code: 'PROJECT_NOT_FOUND' } });
  });
});
