/**
 * The `rye/file-system/{fs_read,fs_write,fs_list}` system tools (issue 17):
 * confined to the project folder. Each refusal leaves the file it aimed at
 * absent or unchanged.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
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

/** Every entry under `dir` (links as their target, never followed) with its content: the project's state. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      const key = relative(dir, path);
      if (entry.isSymbolicLink()) out[key] = `-> ${readlinkSync(path)}`;
      else if (entry.isDirectory()) {
        out[`${key}/`] = '';
        walk(path);
      } else out[key] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('rye/file-system/fs_write with files (several in one call)', () => {
  /** Four good files, one overwriting `keep.txt`, then `last`. */
  const batch = (last: { path: string; content: string }) => [
    { path: 'app/server/index.js', content: 'server\n' },
    { path: 'app/client/app.js', content: 'client\n' },
    { path: '.ai/plans/app/phase_1/plan_a.md', content: '# a\n' },
    { path: 'keep.txt', content: 'new' },
    last,
  ];
  function linked() {
    const p = project();
    p.write('keep.txt', 'old');
    symlinkSync(p.outside, join(p.project, 'out'));
    symlinkSync(join(p.outside, 'secret.txt'), join(p.project, 'secret-link.txt'));
    return p;
  }

  it('writes every file in one process, in order, creating folders, and lists what it wrote', () => {
    const p = project();
    p.write('app/old.txt', 'old');
    const res = runSystemTool(
      WRITE,
      {
        files: [
          { path: 'app/server/index.js', content: 'server\n' },
          { path: './app//old.txt', content: 'v2' },
          { path: '.ai/plans/app/phase_1/plan_a.md', content: '# é' },
        ],
      },
      p.project,
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.out).toEqual({
      success: true,
      files: [
        { path: 'app/server/index.js', bytes: 7, created: true },
        { path: 'app/old.txt', bytes: 2, created: false },
        { path: '.ai/plans/app/phase_1/plan_a.md', bytes: 4, created: true },
      ],
      bytes: 13,
    });
    expect(snapshot(p.project)).toEqual({
      '.ai/': '',
      '.ai/plans/': '',
      '.ai/plans/app/': '',
      '.ai/plans/app/phase_1/': '',
      '.ai/plans/app/phase_1/plan_a.md': '# é',
      'app/': '',
      'app/old.txt': 'v2',
      'app/server/': '',
      'app/server/index.js': 'server\n',
    });
  });

  it.each([
    ['a .. segment', { path: 'app/../../escaped.txt', content: 'x' }, 'FS_PATH_INVALID'],
    ['an absolute path', { path: '/tmp/absolute.txt', content: 'x' }, 'FS_PATH_INVALID'],
    ['a write into .ai/tools/', { path: '.ai/tools/evil.mjs', content: 'x' }, 'FS_PATH_PROTECTED'],
    ['a write to .ai/plans itself', { path: '.AI/plans', content: 'x' }, 'FS_PATH_PROTECTED'],
    [
      'a write into .git/',
      { path: 'app/.git/hooks/pre-commit', content: 'x' },
      'FS_PATH_PROTECTED',
    ],
    ['a folder link leading out', { path: 'out/marker.txt', content: 'x' }, 'FS_PATH_LINK'],
    ['a file link leading out', { path: 'secret-link.txt', content: 'x' }, 'FS_PATH_LINK'],
    ['a file over 96 KiB', { path: 'big.txt', content: 'x'.repeat(96 * 1024 + 1) }, 'FS_TOO_LARGE'],
    ['96 KiB in all', { path: 'big.txt', content: 'x'.repeat(96 * 1024 - 20) }, 'FS_TOO_LARGE'],
  ])('refuses %s in file 5 and writes nothing of files 1 to 4', (_why, last, code) => {
    const p = linked();
    const before = snapshot(p.project);
    const res = runSystemTool(WRITE, { files: batch(last) }, p.project);
    expect(res.code).toBe(1);
    expect(res.out).toMatchObject({ success: false, code });
    expect(snapshot(p.project)).toEqual(before);
    expect(readFileSync(join(p.outside, 'secret.txt'), 'utf8')).toBe('secret');
    expect(existsSync(join(p.outside, 'marker.txt'))).toBe(false);
    expect(existsSync(join(p.root, 'escaped.txt'))).toBe(false);
  });

  it('refuses a call at odds with itself or with the project before writing anything', () => {
    const p = project();
    p.write('keep.txt', 'old');
    p.write('app/readme.txt', 'r');
    const before = snapshot(p.project);
    const refused = (files: { path: string; content: string; overwrite?: boolean }[], extra = {}) =>
      runSystemTool(WRITE, { files, ...extra }, p.project).out;
    const first = { path: 'new/a.txt', content: 'a' };
    // The same file twice (however spelled), a file inside a file it writes.
    expect(refused([first, { path: './new//a.txt', content: 'b' }])).toMatchObject({
      code: 'FS_PATH_INVALID',
      details: { path: 'new/a.txt' },
    });
    expect(refused([first, { path: 'new/a.txt/b.txt', content: 'b' }])).toMatchObject({
      code: 'FS_PATH_INVALID',
    });
    // A file where a folder must be, a folder where the file goes.
    expect(refused([first, { path: 'keep.txt/b.txt', content: 'b' }])).toMatchObject({
      code: 'FS_NOT_A_FOLDER',
    });
    expect(refused([first, { path: 'app', content: 'b' }])).toMatchObject({
      code: 'FS_NOT_A_FILE',
    });
    // overwrite:false, for the call or for one file; create_dirs:false and a missing folder.
    expect(
      refused([first, { path: 'keep.txt', content: 'b' }], { overwrite: false }),
    ).toMatchObject({
      code: 'FS_EXISTS',
    });
    expect(refused([first, { path: 'keep.txt', content: 'b', overwrite: false }])).toMatchObject({
      code: 'FS_EXISTS',
    });
    expect(
      refused([{ path: 'app/b.txt', content: 'b' }, first], { create_dirs: false }),
    ).toMatchObject({
      code: 'FS_NOT_FOUND',
    });
    expect(snapshot(p.project)).toEqual(before);
    // One file's overwrite:true wins over the call's false.
    const res = runSystemTool(
      WRITE,
      { files: [{ path: 'keep.txt', content: 'new', overwrite: true }], overwrite: false },
      p.project,
    );
    expect(res.out).toMatchObject({ success: true, files: [{ path: 'keep.txt', created: false }] });
  });

  it('writes at most 64 files a call; refuses an empty list and both forms at once (run without the executor)', () => {
    const p = project();
    const files = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ path: `many/f${i}.txt`, content: String(i) }));
    expect(runSystemTool(WRITE, { files: files(65) }, p.project).out).toMatchObject({
      code: 'FS_TOO_LARGE',
      details: { files: 65, max: 64 },
    });
    expect(existsSync(join(p.project, 'many'))).toBe(false);
    const ok = runSystemTool(WRITE, { files: files(64) }, p.project);
    expect(ok.out).toMatchObject({ success: true, bytes: 10 + 54 * 2 });
    expect(readdirSync(join(p.project, 'many'))).toHaveLength(64);
    expect(runSystemTool(WRITE, { files: [] }, p.project).out).toMatchObject({
      code: 'FS_PATH_INVALID',
    });
    const both = runSystemTool(
      WRITE,
      { path: 'x.txt', content: 'x', files: [{ path: 'y.txt', content: 'y' }] },
      p.project,
    );
    expect(both.out).toMatchObject({ code: 'FS_PATH_INVALID' });
    expect(existsSync(join(p.project, 'x.txt')) || existsSync(join(p.project, 'y.txt'))).toBe(
      false,
    );
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

  it('sees nothing under .ai/ but .ai/plans: items only through load and search, never a transcript or key', async () => {
    const p = await makeExecProject();
    mkdirSync(join(p.project, '.ai/knowledge/private'), { recursive: true });
    writeFileSync(join(p.project, '.ai/knowledge/private/notes.md'), 'ungranted knowledge');
    mkdirSync(join(p.project, '.ai/threads/t-1'), { recursive: true });
    writeFileSync(join(p.project, '.ai/threads/t-1/transcript.jsonl'), '{"secret":1}\n');
    mkdirSync(join(p.project, '.ai/plans'), { recursive: true });
    writeFileSync(join(p.project, '.ai/plans/plan.md'), '# plan');
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
        { env: p.env },
      );
    for (const path of [
      '.ai/knowledge/private/notes.md',
      '.ai/threads/t-1/transcript.jsonl',
      '.ai/trusted_keys',
    ]) {
      const res = await run('rye/file-system/fs_read', { path });
      expect(res.code, path).toBe(1);
      expect(res.stdout).not.toContain('ungranted knowledge');
      expect(res.stdout).not.toContain('secret');
    }
    const plan = await run('rye/file-system/fs_read', { path: '.ai/plans/plan.md' });
    expect(plan.json<{ data: { content: string } }>().data.content).toBe('# plan');
    const listed = await run('rye/file-system/fs_list', { path: '.ai', recursive: true });
    const text = JSON.stringify(listed.json<{ data: unknown }>().data);
    expect(text).toContain('plan.md');
    for (const hidden of ['knowledge', 'threads', 'transcript', 'tools'])
      expect(text, hidden).not.toContain(hidden);
  });

  it('takes files: [...] through the config_schema; refuses both forms, unknown keys and 65 files before the tool runs', async () => {
    const p = await makeExecProject();
    const run = async (params: Record<string, unknown>) => {
      const res = await rye(
        [
          'execute',
          'tool',
          'rye/file-system/fs_write',
          '--params',
          JSON.stringify(params),
          '--project',
          p.project,
          '--json',
        ],
        { env: p.env },
      );
      return { code: res.code, stderr: res.stderr, doc: res.json<Record<string, unknown>>() };
    };
    const files = [
      { path: 'app/a.txt', content: 'a' },
      { path: '.ai/plans/app/plan.md', content: '# plan' },
    ];
    const written = await run({ files });
    expect(written.code, written.stderr).toBe(0);
    expect(written.doc).toMatchObject({
      data: {
        success: true,
        files: [
          { path: 'app/a.txt', bytes: 1, created: true },
          { path: '.ai/plans/app/plan.md', bytes: 6, created: true },
        ],
      },
    });
    expect(readFileSync(join(p.project, '.ai/plans/app/plan.md'), 'utf8')).toBe('# plan');
    // The schema refuses before any process starts: no file of the call appears.
    for (const params of [
      { files: [{ path: 'b.txt', content: 'b' }], path: 'c.txt', content: 'c' },
      { files: [{ path: 'b.txt', content: 'b' }], path: 'c.txt' },
      { files: [{ path: 'b.txt', content: 'b', mode: 0o777 }] },
      { files: [{ path: 'b.txt' }] },
      { files: [] },
      { path: 'c.txt' },
      { files: Array.from({ length: 65 }, (_, i) => ({ path: `b${i}.txt`, content: 'b' })) },
    ]) {
      const refused = await run(params);
      expect(refused.code, JSON.stringify(params).slice(0, 80)).not.toBe(0);
      expect(refused.doc).toMatchObject({ error: { code: 'PARAMS_INVALID' } });
    }
    expect(readdirSync(p.project).filter((f) => /^[bc]/.test(f))).toEqual([]);
  });
});
