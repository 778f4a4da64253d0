/**
 * The `rye/file-system/{fs_read,fs_write,fs_list}` system tools (issue 17):
 * confined to the project folder. Each refusal leaves the file it aimed at
 * absent or unchanged.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/index.js';
import { rye } from '../helpers/cli.js';
import { makeExecProject } from '../helpers/exec-project.js';
import { makeTempSpaces } from '../helpers/temp-space.js';
import { runSystemTool } from '../support/system-tool/run-system-tool.js';

const WRITE = 'rye/file-system/fs_write.mjs';
const READ = 'rye/file-system/fs_read.mjs';
const LIST = 'rye/file-system/fs_list.mjs';

function project() {
  const s = makeTempSpaces();
  const outside = join(s.root, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  return { ...s, outside };
}

describe('rye/file-system/fs_write', () => {
  it('writes a file, creating its folders, and reports created/bytes', () => {
    const p = project();
    const res = runSystemTool(WRITE, { path: 'app/server/index.js', content: 'ok\n' }, p.project);
    expect(res.out).toEqual({
      success: true,
      path: 'app/server/index.js',
      bytes: 3,
      created: true,
    });
    expect(readFileSync(join(p.project, 'app/server/index.js'), 'utf8')).toBe('ok\n');
    const again = runSystemTool(
      WRITE,
      { path: './app//server/index.js', content: 'v2' },
      p.project,
    );
    expect(again.out).toMatchObject({ success: true, created: false });
    expect(readFileSync(join(p.project, 'app/server/index.js'), 'utf8')).toBe('v2');
  });

  it.each([
    ['an absolute path', '/tmp/x.txt'],
    ['a .. segment', 'app/../../x.txt'],
    ['a NUL', 'app/x\u0000.txt'],
    ['a backslash', 'app\\x.txt'],
    ['a drive letter', 'C:/x.txt'],
    ['a home path', '~/x.txt'],
  ])('refuses %s (FS_PATH_INVALID)', (_why, path) => {
    const p = project();
    const res = runSystemTool(WRITE, { path, content: 'x' }, p.project);
    expect(res.code).toBe(1);
    expect(res.out).toMatchObject({ success: false, code: 'FS_PATH_INVALID' });
  });

  it.each([
    ['.ai/tools/evil.py'],
    ['.ai/directives/x.md'],
    ['.AI/keys/private_key.pem'],
    ['.ai/plans'],
    ['app/.git/hooks/pre-commit'],
    ['.git/config'],
  ])('refuses %s (FS_PATH_PROTECTED), writing nothing', (path) => {
    const p = project();
    const res = runSystemTool(WRITE, { path, content: 'x' }, p.project);
    expect(res.out).toMatchObject({ success: false, code: 'FS_PATH_PROTECTED' });
    expect(existsSync(join(p.project, path))).toBe(false);
  });

  it('writes under .ai/plans/', () => {
    const p = project();
    const res = runSystemTool(
      WRITE,
      { path: '.ai/plans/tm/phase_1/plan_a.md', content: '# a' },
      p.project,
    );
    expect(res.out).toMatchObject({ success: true });
  });

  it('refuses a write through a folder link or onto a file link (FS_PATH_LINK); the outside file is untouched', () => {
    const p = project();
    symlinkSync(p.outside, join(p.project, 'out'));
    symlinkSync(join(p.outside, 'secret.txt'), join(p.project, 'secret-link.txt'));
    const viaFolder = runSystemTool(WRITE, { path: 'out/marker.txt', content: 'x' }, p.project);
    expect(viaFolder.out).toMatchObject({
      success: false,
      code: 'FS_PATH_LINK',
      details: { link: 'out' },
    });
    expect(existsSync(join(p.outside, 'marker.txt'))).toBe(false);
    const onto = runSystemTool(WRITE, { path: 'secret-link.txt', content: 'x' }, p.project);
    expect(onto.out).toMatchObject({ success: false, code: 'FS_PATH_LINK' });
    expect(readFileSync(join(p.outside, 'secret.txt'), 'utf8')).toBe('secret');
    // A link inside the project to another place inside it is still a link: refused for writes.
    mkdirSync(join(p.project, 'real'));
    symlinkSync(join(p.project, 'real'), join(p.project, 'alias'));
    const inside = runSystemTool(WRITE, { path: 'alias/x.txt', content: 'x' }, p.project);
    expect(inside.out).toMatchObject({ code: 'FS_PATH_LINK' });
  });

  it('refuses content over 96 KiB (FS_TOO_LARGE), overwrite:false on an existing file (FS_EXISTS), a folder (FS_NOT_A_FILE)', () => {
    const p = project();
    const big = runSystemTool(
      WRITE,
      { path: 'big.txt', content: 'x'.repeat(96 * 1024 + 1) },
      p.project,
    );
    expect(big.out).toMatchObject({ code: 'FS_TOO_LARGE' });
    expect(existsSync(join(p.project, 'big.txt'))).toBe(false);
    p.write('a.txt', 'old');
    const keep = runSystemTool(
      WRITE,
      { path: 'a.txt', content: 'new', overwrite: false },
      p.project,
    );
    expect(keep.out).toMatchObject({ code: 'FS_EXISTS' });
    expect(readFileSync(join(p.project, 'a.txt'), 'utf8')).toBe('old');
    mkdirSync(join(p.project, 'folder'));
    expect(runSystemTool(WRITE, { path: 'folder', content: 'x' }, p.project).out).toMatchObject({
      code: 'FS_NOT_A_FILE',
    });
    expect(runSystemTool(WRITE, { path: '.', content: 'x' }, p.project).out).toMatchObject({
      code: 'FS_PATH_INVALID',
    });
  });
});

describe('rye/file-system/fs_read and fs_list', () => {
  it('reads a file inside the project, following a link that stays inside', () => {
    const p = project();
    p.write('app/a.txt', 'hello');
    symlinkSync(join(p.project, 'app', 'a.txt'), join(p.project, 'alias.txt'));
    expect(runSystemTool(READ, { path: 'app/a.txt' }, p.project).out).toEqual({
      success: true,
      path: 'app/a.txt',
      bytes: 5,
      content: 'hello',
    });
    expect(runSystemTool(READ, { path: 'alias.txt' }, p.project).out).toMatchObject({
      content: 'hello',
    });
  });

  it('refuses a link leading out (FS_PATH_ESCAPE), .., missing files, binary files', () => {
    const p = project();
    symlinkSync(join(p.outside, 'secret.txt'), join(p.project, 'leak.txt'));
    symlinkSync(p.outside, join(p.project, 'out'));
    const leak = runSystemTool(READ, { path: 'leak.txt' }, p.project);
    expect(leak.out).toMatchObject({ success: false, code: 'FS_PATH_ESCAPE' });
    expect(leak.stdout).not.toContain('secret"');
    expect(runSystemTool(READ, { path: 'out/secret.txt' }, p.project).out).toMatchObject({
      code: 'FS_PATH_ESCAPE',
    });
    expect(runSystemTool(READ, { path: '../outside/secret.txt' }, p.project).out).toMatchObject({
      code: 'FS_PATH_INVALID',
    });
    expect(runSystemTool(READ, { path: 'nope.txt' }, p.project).out).toMatchObject({
      code: 'FS_NOT_FOUND',
    });
    p.write('bin.dat', Buffer.from([0xff, 0xfe, 0x00]));
    expect(runSystemTool(READ, { path: 'bin.dat' }, p.project).out).toMatchObject({
      code: 'FS_NOT_TEXT',
    });
  });

  it('lists a folder, links as links (never descended), .git not descended; refuses a link out', () => {
    const p = project();
    p.write('app/b.txt', 'b');
    p.write('app/sub/c.txt', 'cc');
    p.write('app/.git/HEAD', 'x');
    symlinkSync(p.outside, join(p.project, 'app', 'out'));
    const res = runSystemTool(LIST, { path: 'app', recursive: true }, p.project);
    expect(res.out).toEqual({
      success: true,
      path: 'app',
      truncated: false,
      entries: [
        { path: '.git', type: 'folder' },
        { path: 'b.txt', type: 'file', bytes: 1 },
        { path: 'out', type: 'link' },
        { path: 'sub', type: 'folder' },
        { path: 'sub/c.txt', type: 'file', bytes: 2 },
      ],
    });
    expect(runSystemTool(LIST, { path: 'app/out' }, p.project).out).toMatchObject({
      code: 'FS_PATH_ESCAPE',
    });
    expect(runSystemTool(LIST, { path: 'app/b.txt' }, p.project).out).toMatchObject({
      code: 'FS_NOT_A_FOLDER',
    });
    expect(
      runSystemTool(LIST, { path: 'app', recursive: true, max_entries: 2 }, p.project).out,
    ).toMatchObject({
      truncated: true,
    });
  });
});

describe('the file-system tools through rye execute (signed system build)', () => {
  it('writes and reads in the project; a refusal carries its code; every code is registered', async () => {
    const p = await makeExecProject();
    const run = (tool: string, params: Record<string, unknown>) =>
      rye(
        [
          'execute',
          'tool',
          tool,
          '--params',
          JSON.stringify(params),
          '--project',
          p.project,
          '--json',
        ],
        {
          env: p.env,
        },
      );
    const written = await run('rye/file-system/fs_write', { path: 'app/x.txt', content: 'x' });
    expect(written.code, written.stderr).toBe(0);
    const read = await run('rye/file-system/fs_read', { path: 'app/x.txt' });
    expect(read.json<{ data: { content: string } }>().data.content).toBe('x');
    const refused = await run('rye/file-system/fs_write', { path: '.ai/tools/x.py', content: 'x' });
    expect(refused.code).toBe(1);
    expect(refused.json<{ data: { code: string } }>().data.code).toBe('FS_PATH_PROTECTED');
    expect(existsSync(join(p.project, '.ai/tools/x.py'))).toBe(false);
    for (const code of [
      'FS_PATH_INVALID',
      'FS_PATH_ESCAPE',
      'FS_PATH_LINK',
      'FS_PATH_PROTECTED',
      'FS_NOT_FOUND',
      'FS_NOT_A_FILE',
      'FS_NOT_A_FOLDER',
      'FS_EXISTS',
      'FS_TOO_LARGE',
      'FS_NOT_TEXT',
      'FS_IO_FAILED',
      'FS_PROJECT_MISSING',
    ])
      expect(ERROR_CODES).toHaveProperty(code);
  });
});
