/**
 * The pure parts of the sandbox (CONTAINMENT.md §1): the bwrap argv, the
 * effective permissions, the permission parser, the project view on a real
 * temp folder, and the environment built from nothing. No spawning.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import {
  DEFAULT_PERMISSIONS,
  parsePermissions,
  type ToolPermissions,
} from '../../../src/items/index.js';
import {
  effectivePermissions,
  intersectFolders,
  isInside,
  projectMounts,
  sandboxArgv,
  sandboxEnv,
  type SandboxEnvInput,
  type SandboxMount,
  type SandboxPlan,
} from '../../../src/executor/sandbox/index.js';

// ---------------------------------------------------------------------------
// sandboxArgv

const SYSTEM: SandboxMount[] = [
  { kind: 'ro', source: '/usr', target: '/usr' },
  { kind: 'symlink', source: 'usr/bin', target: '/bin' },
  { kind: 'ro', source: '/etc/passwd', target: '/etc/passwd' },
];

const PROJECT: SandboxMount[] = [
  { kind: 'ro', source: '/p', target: '/p' },
  { kind: 'tmpfs', target: '/p/.ai' },
  { kind: 'ro', source: '/dev/null', target: '/p/secret.txt' },
  { kind: 'rw', source: '/p/out', target: '/p/out' },
  { kind: 'dir', target: '/p/work' },
];

function plan(over: Partial<SandboxPlan> = {}): SandboxPlan {
  return {
    system: SYSTEM,
    readOnly: ['/opt/python', '/rye/pkg', '/cache/snap'],
    project: PROJECT,
    home: '/tmp/home',
    cwd: '/p',
    network: false,
    daemon: false,
    command: ['/usr/bin/python3', '/cache/snap/tool.py', '--params', '{"a":1}'],
    ...over,
  };
}

/** The index of the `n`-th occurrence of a run of arguments in argv. */
function indexOfRun(argv: readonly string[], run: readonly string[], from = 0): number {
  for (let i = from; i + run.length <= argv.length; i += 1)
    if (run.every((part, j) => argv[i + j] === part)) return i;
  return -1;
}

describe('sandboxArgv', () => {
  it('always unshares everything, starts a new session and drops capabilities', () => {
    const argv = sandboxArgv(plan());
    expect(argv[0]).toBe('--unshare-all');
    expect(argv).toContain('--new-session');
    expect(indexOfRun(argv, ['--cap-drop', 'ALL'])).toBeGreaterThan(0);
    // Everything before the first mount is a namespace or process flag.
    expect(argv.slice(0, argv.indexOf('--ro-bind'))).toEqual([
      '--unshare-all',
      '--die-with-parent',
      '--new-session',
      '--cap-drop',
      'ALL',
    ]);
  });

  it('shares the network only when the plan grants it', () => {
    expect(sandboxArgv(plan())).not.toContain('--share-net');
    const argv = sandboxArgv(plan({ network: true }));
    expect(argv.filter((a) => a === '--share-net')).toHaveLength(1);
    expect(argv.indexOf('--share-net')).toBeLessThan(argv.indexOf('--'));
    expect(argv).toContain('--unshare-all');
  });

  it('dies with its parent unless the tool is a declared daemon', () => {
    expect(sandboxArgv(plan())).toContain('--die-with-parent');
    const daemon = sandboxArgv(plan({ daemon: true }));
    expect(daemon).not.toContain('--die-with-parent');
    // A daemon still gets its own session and every namespace.
    expect(daemon).toContain('--new-session');
    expect(daemon).toContain('--unshare-all');
  });

  it('mounts in order: system, /proc /dev /tmp and home, the project view, read-only extras (over any writable project folder), then --chdir and the command', () => {
    const argv = sandboxArgv(plan());
    const at = (run: string[]): number => {
      const i = indexOfRun(argv, run);
      expect(i, run.join(' ')).toBeGreaterThan(-1);
      return i;
    };
    const order = [
      at(['--ro-bind', '/usr', '/usr']),
      at(['--symlink', 'usr/bin', '/bin']),
      at(['--ro-bind', '/etc/passwd', '/etc/passwd']),
      at(['--proc', '/proc']),
      at(['--dev', '/dev']),
      at(['--tmpfs', '/tmp']),
      at(['--dir', '/tmp/home']),
      at(['--ro-bind', '/p', '/p']),
      at(['--tmpfs', '/p/.ai']),
      at(['--ro-bind', '/dev/null', '/p/secret.txt']),
      at(['--bind', '/p/out', '/p/out']),
      at(['--dir', '/p/work']),
      at(['--ro-bind', '/opt/python', '/opt/python']),
      at(['--ro-bind', '/rye/pkg', '/rye/pkg']),
      at(['--ro-bind', '/cache/snap', '/cache/snap']),
      at(['--chdir', '/p']),
      argv.indexOf('--'),
    ];
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(new Set(order).size).toBe(order.length);
  });

  it('ends with -- and the command verbatim (no shell, no splitting)', () => {
    const command = ['/usr/bin/node', 'a b', '$(id)', '; rm -rf ~', '--'];
    const argv = sandboxArgv(plan({ command }));
    const dash = argv.indexOf('--');
    expect(argv.slice(dash + 1)).toEqual(command);
    expect(argv.slice(dash - 2, dash)).toEqual(['--chdir', '/p']);
  });

  it('binds each read-only extra at its own path', () => {
    const argv = sandboxArgv(plan({ readOnly: ['/x/y'] }));
    expect(indexOfRun(argv, ['--ro-bind', '/x/y', '/x/y'])).toBeGreaterThan(-1);
  });

  it('never puts an environment value in the argv (a command line is world-readable)', () => {
    const argv = sandboxArgv(plan());
    for (const flag of ['--setenv', '--unsetenv', '--clearenv']) expect(argv).not.toContain(flag);
    expect(argv.some((a) => /^[A-Z_]+=/.test(a))).toBe(false);
    // The plan has no place for the environment at all: the caller passes it to spawn.
    expect(Object.keys(plan())).not.toContain('env');
  });

  it('is pure: the same plan gives the same argv and the plan is not changed', () => {
    const p = plan();
    const before = JSON.stringify(p);
    expect(sandboxArgv(p)).toEqual(sandboxArgv(p));
    expect(JSON.stringify(p)).toBe(before);
  });
});

// ---------------------------------------------------------------------------
// effectivePermissions / intersectFolders

const declared = (over: Partial<ToolPermissions> = {}): ToolPermissions => ({
  ...DEFAULT_PERMISSIONS,
  ...over,
});

describe('effectivePermissions: declaration ∩ grants, never widened', () => {
  it('without grants, the declaration applies as it is', () => {
    const d = declared({ write: ['apps/**'], network: true, daemon: true });
    expect(effectivePermissions(d, undefined)).toEqual({ ...d, narrowed: [] });
  });

  it('a granted folder inside a declared one narrows the write to it', () => {
    const e = effectivePermissions(declared({ write: ['apps/**'] }), { write: ['apps/todo/**'] });
    expect(e.write).toEqual(['apps/todo/**']);
    expect(e.narrowed).toEqual([]);
  });

  it('a grant wider than the declaration does not widen it', () => {
    const e = effectivePermissions(declared({ write: ['apps/todo/**'] }), { write: ['.'] });
    expect(e.write).toEqual(['apps/todo/**']);
    const f = effectivePermissions(declared({ write: ['apps/todo'] }), { write: ['apps/**'] });
    expect(f.write).toEqual(['apps/todo']);
  });

  it('a grant never adds a write the tool did not declare', () => {
    const e = effectivePermissions(declared({ write: [] }), { write: ['apps/**'] });
    expect(e.write).toEqual([]);
    const f = effectivePermissions(declared({ write: ['docs/**'] }), { write: ['apps/**'] });
    expect(f.write).toEqual([]);
    expect(f.narrowed).toEqual(['write:docs/**']);
  });

  it('a grant never adds network or a daemon the tool did not declare', () => {
    const e = effectivePermissions(declared(), { network: true, daemon: true });
    expect(e.network).toBe(false);
    expect(e.daemon).toBe(false);
    expect(e.narrowed).toEqual([]);
  });

  it('network: false in the grants removes a declared network, and says so', () => {
    const e = effectivePermissions(declared({ network: true }), { network: false });
    expect(e.network).toBe(false);
    expect(e.narrowed).toContain('network');
    // Absent in the grants: no narrowing.
    expect(effectivePermissions(declared({ network: true }), {}).network).toBe(true);
  });

  it('daemon: false in the grants removes a declared daemon', () => {
    const e = effectivePermissions(declared({ daemon: true }), { daemon: false });
    expect(e.daemon).toBe(false);
    expect(e.narrowed).toContain('daemon');
  });

  it('narrowed lists every declared entry the grants dropped', () => {
    const e = effectivePermissions(
      declared({ write: ['apps/**', 'docs/**', '.ai/plans/**'], network: true }),
      { write: ['apps/todo/**'], network: false },
    );
    expect(e.write).toEqual(['apps/todo/**']);
    expect([...e.narrowed].sort()).toEqual(['network', 'write:.ai/plans/**', 'write:docs/**']);
  });

  it('keeps reads, masks, env and rye as declared (the channel is checked call by call)', () => {
    const d = declared({ read: ['src/**', '!src/secret'], env: ['NODE_ENV'], rye: ['rye.load.*'] });
    const e = effectivePermissions(d, { write: [], network: false });
    expect(e.read).toEqual(d.read);
    expect(e.env).toEqual(d.env);
    expect(e.rye).toEqual(d.rye);
  });

  it('does not change the declaration it was given', () => {
    const d = declared({ write: ['apps/**'], network: true });
    const before = JSON.stringify(d);
    effectivePermissions(d, { write: ['apps/x/**'], network: false });
    expect(JSON.stringify(d)).toBe(before);
  });
});

describe('intersectFolders / isInside', () => {
  it('keeps the narrower of two nested folders, from either side', () => {
    expect(intersectFolders(['apps/**'], ['apps/todo/**'])).toEqual(['apps/todo/**']);
    expect(intersectFolders(['apps/todo/**'], ['apps/**'])).toEqual(['apps/todo/**']);
    expect(intersectFolders(['.'], ['apps/**', 'docs'])).toEqual(['apps/**', 'docs']);
    expect(intersectFolders(['apps/**', 'docs'], ['.'])).toEqual(['apps/**', 'docs']);
  });

  it('drops disjoint folders and folders that only share a name prefix', () => {
    expect(intersectFolders(['apps/**'], ['docs/**'])).toEqual([]);
    expect(intersectFolders(['app/**'], ['apps/**'])).toEqual([]);
    expect(intersectFolders(['apps'], ['apps-old'])).toEqual([]);
  });

  it('ignores masks on either side (a mask never grants anything)', () => {
    expect(intersectFolders(['!apps'], ['apps/**'])).toEqual([]);
    expect(intersectFolders(['apps/**'], ['!apps'])).toEqual([]);
  });

  it('isInside compares whole path segments', () => {
    expect(isInside('apps/todo', 'apps/**')).toBe(true);
    expect(isInside('apps/**', 'apps')).toBe(true);
    expect(isInside('apps', 'apps/todo')).toBe(false);
    expect(isInside('appsx', 'apps')).toBe(false);
    expect(isInside('anything/at/all', '.')).toBe(true);
    expect(isInside('.', 'apps')).toBe(false);
  });
});

// ---------------------------------------------------------------------------
// parsePermissions

const codes = (raw: unknown): (string | undefined)[] =>
  parsePermissions(raw).issues.map((i) => i.code);

describe('parsePermissions', () => {
  it('gives the default when nothing is declared: read the project but .ai, nothing else', () => {
    const { permissions, issues, warnings } = parsePermissions(undefined);
    expect(issues).toEqual([]);
    expect(warnings).toEqual([]);
    expect(permissions).toEqual({
      read: ['.', '!.ai'],
      write: [],
      network: false,
      env: [],
      rye: [],
      daemon: false,
      maxFileMb: 256,
    });
    expect(permissions).toBe(DEFAULT_PERMISSIONS);
  });

  it('fills what a declaration leaves out with the defaults', () => {
    const { permissions, issues } = parsePermissions({ write: ['out/**'] });
    expect(issues).toEqual([]);
    expect(permissions).toMatchObject({ read: ['.', '!.ai'], write: ['out/**'], network: false });
  });

  it('reads every key', () => {
    const { permissions, issues, warnings } = parsePermissions({
      read: ['src/**', '!src/secret'],
      write: ['.ai/plans/**', 'apps'],
      network: true,
      env: ['NODE_ENV'],
      rye: ['rye.execute.tool.rye/file-system/*', 'rye.load.knowledge.apps/*'],
      daemon: true,
      max_file_mb: 16,
    });
    expect(issues).toEqual([]);
    expect(warnings).toEqual([]);
    expect(permissions).toEqual({
      read: ['src/**', '!src/secret'],
      write: ['.ai/plans/**', 'apps'],
      network: true,
      env: ['NODE_ENV'],
      rye: ['rye.execute.tool.rye/file-system/*', 'rye.load.knowledge.apps/*'],
      daemon: true,
      maxFileMb: 16,
    });
  });

  it.each([
    ['a list', ['.']],
    ['a string', '.'],
    ['null', null],
    ['a number', 3],
  ])('PERMISSIONS_INVALID: permissions as %s', (_what, raw) => {
    expect(codes(raw)).toEqual(['PERMISSIONS_INVALID']);
    expect(parsePermissions(raw).permissions).toBe(DEFAULT_PERMISSIONS);
  });

  it.each([
    ['read not a list', { read: '.' }],
    ['write with a non-string', { write: [1] }],
    ['network not a boolean', { network: 'yes' }],
    ['daemon not a boolean', { daemon: 1 }],
    ['env with a bad name', { env: ['NOT-A-NAME'] }],
    ['rye not a capability', { rye: ['execute everything'] }],
    ['max_file_mb zero', { max_file_mb: 0 }],
    ['max_file_mb fractional', { max_file_mb: 1.5 }],
    ['an empty path', { read: [''] }],
    ['an empty segment', { write: ['a//b'] }],
    ['a "." segment', { write: ['a/./b'] }],
    ['too many entries', { read: Array.from({ length: 65 }, (_, i) => `d${i}`) }],
  ])('PERMISSIONS_INVALID: %s', (_what, raw) => {
    expect(codes(raw)).toEqual(['PERMISSIONS_INVALID']);
  });

  it('PERMISSIONS_UNKNOWN_KEY for a key that is not a permission (a tool cannot say sandbox: off)', () => {
    expect(codes({ sandbox: false })).toEqual(['PERMISSIONS_UNKNOWN_KEY']);
    expect(codes({ read: ['.'], mounts: ['/'], net: true })).toEqual([
      'PERMISSIONS_UNKNOWN_KEY',
      'PERMISSIONS_UNKNOWN_KEY',
    ]);
  });

  it.each([['/'], ['/etc'], ['/proc'], ['!/home'], ['/tmp/**']])(
    'PERMISSIONS_PATH_ABSOLUTE: %s',
    (path) => {
      expect(codes({ read: [path] })).toEqual(['PERMISSIONS_PATH_ABSOLUTE']);
      expect(codes({ write: [path] })).toEqual(['PERMISSIONS_PATH_ABSOLUTE']);
    },
  );

  it.each([['..'], ['../other'], ['a/../../b'], ['a/..'], ['../**'], ['!..']])(
    'PERMISSIONS_PATH_ESCAPES: %s (..)',
    (path) => {
      expect(codes({ read: [path] })).toEqual(['PERMISSIONS_PATH_ESCAPES']);
      expect(codes({ write: [path] })).toEqual(['PERMISSIONS_PATH_ESCAPES']);
    },
  );

  it.each([['~'], ['~/.ssh'], ['~root/**'], ['!~']])('PERMISSIONS_PATH_ESCAPES: %s (~)', (path) => {
    expect(codes({ read: [path] })).toEqual(['PERMISSIONS_PATH_ESCAPES']);
    expect(codes({ write: [path] })).toEqual(['PERMISSIONS_PATH_ESCAPES']);
  });

  it.each([
    ['.ai/threads'],
    ['.ai/threads/**'],
    ['.ai/threads/T-1/transcript.jsonl'],
    ['.ai/keys'],
    ['.ai/keys/**'],
    ['.ai/trusted_keys'],
    ['.ai/trusted_keys/x.toml'],
  ])('PERMISSIONS_PATH_RESERVED: %s', (path) => {
    expect(codes({ read: [path] })).toEqual(['PERMISSIONS_PATH_RESERVED']);
    expect(codes({ write: [path] })).toEqual(['PERMISSIONS_PATH_RESERVED']);
  });

  it('allows masking a reserved folder (a mask only hides more)', () => {
    expect(codes({ read: ['.', '!.ai/threads'] })).toEqual([]);
  });

  it('does not take a sibling of a reserved folder for it', () => {
    expect(codes({ read: ['.ai/threads-archive/**', '.ai/keysmith'] })).toEqual([]);
  });

  it.each([['a/*/b'], ['src/*.ts'], ['a/**/b'], ['a?'], ['{a,b}'], ['[ab]']])(
    'PERMISSIONS_GLOB_UNSUPPORTED: %s',
    (path) => {
      expect(codes({ read: [path] })).toEqual(['PERMISSIONS_GLOB_UNSUPPORTED']);
      expect(codes({ write: [path] })).toEqual(['PERMISSIONS_GLOB_UNSUPPORTED']);
    },
  );

  it('accepts ".", "a/b", "a/b/**", "**" and masks', () => {
    expect(codes({ read: ['.', 'a/b', 'a/b/**', '**', '!a/b/c'], write: ['a/b/**'] })).toEqual([]);
  });

  it('collects every problem at once, each with its field', () => {
    const { issues } = parsePermissions({
      read: ['/', '~', '/proc', '..', '.ai/threads'],
      write: ['a/*/b'],
      bogus: 1,
    });
    expect(issues.map((i) => [i.field, i.code])).toEqual([
      ['permissions.bogus', 'PERMISSIONS_UNKNOWN_KEY'],
      ['permissions.read[0]', 'PERMISSIONS_PATH_ABSOLUTE'],
      ['permissions.read[1]', 'PERMISSIONS_PATH_ESCAPES'],
      ['permissions.read[2]', 'PERMISSIONS_PATH_ABSOLUTE'],
      ['permissions.read[3]', 'PERMISSIONS_PATH_ESCAPES'],
      ['permissions.read[4]', 'PERMISSIONS_PATH_RESERVED'],
      ['permissions.write[0]', 'PERMISSIONS_GLOB_UNSUPPORTED'],
    ]);
  });

  it('a refused list falls back to the default, never to what was asked', () => {
    const { permissions } = parsePermissions({ read: ['/'], write: ['..'] });
    expect(permissions.read).toEqual(['.', '!.ai']);
    expect(permissions.write).toEqual([]);
  });

  it.each([['ANTHROPIC_API_KEY'], ['OPENAI_API_KEY'], ['RYE_CAP_TOKEN'], ['SOME_VENDOR_API_KEY']])(
    'PERMISSIONS_SECRET_ENV is a warning for %s, not an error',
    (name) => {
      const { issues, warnings, permissions } = parsePermissions({ env: ['NODE_ENV', name] });
      expect(issues).toEqual([]);
      expect(warnings.map((w) => [w.field, w.code])).toEqual([
        ['permissions.env[1]', 'PERMISSIONS_SECRET_ENV'],
      ]);
      expect(permissions.env).toEqual(['NODE_ENV', name]);
    },
  );

  it('never throws on hostile input', () => {
    const hostile = [
      Object.create(null) as object,
      { read: [{ toString: () => '.' }] },
      { read: new Array(10_000).fill('.') },
      { __proto__: { read: ['/'] } },
      { env: [null] },
    ];
    for (const raw of hostile) expect(() => parsePermissions(raw)).not.toThrow();
    // An inherited key is not a declaration.
    expect(parsePermissions({ __proto__: { read: ['/'] } }).permissions.read).toEqual([
      '.',
      '!.ai',
    ]);
  });
});

// ---------------------------------------------------------------------------
// projectMounts on a real temp folder

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempProject(files: string[] = []): { root: string; project: string; outside: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'rye-mounts-')));
  temps.push(root);
  const project = join(root, 'project');
  const outside = join(root, 'outside');
  mkdirSync(project);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'outside');
  for (const file of files) {
    const path = join(project, file);
    mkdirSync(dirname(path), { recursive: true });
    if (!file.endsWith('/')) writeFileSync(path, file);
  }
  return { root, project, outside };
}

const hidden = (root: string): { userAi: string; home: string } => ({
  userAi: join(root, 'user', '.ai'),
  home: join(root, 'home'),
});

const perms = (read: string[], write: string[] = []): Pick<ToolPermissions, 'read' | 'write'> => ({
  read,
  write,
});

function refusedCode(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (isRyeError(error)) return error.code;
    throw error;
  }
  return undefined;
}

/** The mounts covering `path` (the last one wins in bwrap). */
function lastMountOver(mounts: readonly SandboxMount[], path: string): SandboxMount | undefined {
  return mounts
    .filter((m) => m.kind !== 'symlink' && (path === m.target || path.startsWith(`${m.target}/`)))
    .at(-1);
}

describe('projectMounts', () => {
  it('binds a read of "." read-only and masks .ai with an empty tmpfs', () => {
    const { root, project } = tempProject(['src/a.ts', '.ai/knowledge/k.md', '.ai/tools/t.py']);
    const mounts = projectMounts(project, perms(['.']), hidden(root));
    expect(mounts[0]).toEqual({ kind: 'ro', source: project, target: project });
    expect(mounts).toContainEqual({ kind: 'tmpfs', target: join(project, '.ai') });
    expect(lastMountOver(mounts, join(project, '.ai/knowledge/k.md'))?.kind).toBe('tmpfs');
    expect(mounts.some((m) => m.kind === 'rw')).toBe(false);
  });

  it('applies the default declaration (".", "!.ai") with one .ai mask', () => {
    const { root, project } = tempProject(['.ai/knowledge/k.md']);
    const mounts = projectMounts(project, DEFAULT_PERMISSIONS, hidden(root));
    expect(mounts.filter((m) => m.target === join(project, '.ai'))).toEqual([
      { kind: 'tmpfs', target: join(project, '.ai') },
    ]);
  });

  it('shows a named .ai folder over the mask, read-only', () => {
    const { root, project } = tempProject(['.ai/plans/p.md', '.ai/knowledge/k.md']);
    const mounts = projectMounts(project, perms(['.', '.ai/plans/**']), hidden(root));
    const plans = join(project, '.ai/plans');
    expect(lastMountOver(mounts, join(plans, 'p.md'))).toEqual({
      kind: 'ro',
      source: plans,
      target: plans,
    });
    expect(lastMountOver(mounts, join(project, '.ai/knowledge/k.md'))?.kind).toBe('tmpfs');
    expect(mounts.findIndex((m) => m.target === plans)).toBeGreaterThan(
      mounts.findIndex((m) => m.target === join(project, '.ai')),
    );
  });

  it('masks a "!" file with /dev/null and a "!" folder with a tmpfs', () => {
    const { root, project } = tempProject(['secret.txt', 'private/x', 'src/a']);
    const mounts = projectMounts(project, perms(['.', '!secret.txt', '!private']), hidden(root));
    expect(mounts).toContainEqual({
      kind: 'ro',
      source: '/dev/null',
      target: join(project, 'secret.txt'),
    });
    expect(mounts).toContainEqual({ kind: 'tmpfs', target: join(project, 'private') });
  });

  it('binds write folders read-write after the read view', () => {
    const { root, project } = tempProject(['out/']);
    const mounts = projectMounts(project, perms(['.'], ['out/**']), hidden(root));
    const out = join(project, 'out');
    expect(mounts.at(-1)).toEqual({ kind: 'rw', source: out, target: out });
  });

  it('never shows .ai/threads, .ai/keys or .ai/trusted_keys, even when .ai/** is read and written', () => {
    const { root, project } = tempProject([
      '.ai/threads/T-1/transcript.jsonl',
      '.ai/keys/private_key.pem',
      '.ai/trusted_keys/k.toml',
      '.ai/plans/p.md',
    ]);
    const mounts = projectMounts(project, perms(['.', '.ai/**'], ['.ai/**']), hidden(root));
    for (const rel of [
      '.ai/threads/T-1/transcript.jsonl',
      '.ai/keys/private_key.pem',
      '.ai/trusted_keys/k.toml',
    ])
      expect(lastMountOver(mounts, join(project, rel))?.kind, rel).toBe('tmpfs');
    expect(lastMountOver(mounts, join(project, '.ai/plans/p.md'))?.kind).toBe('rw');
  });

  it('never shows .ai/threads when the whole project is written', () => {
    const { root, project } = tempProject(['.ai/threads/T-1/transcript.jsonl']);
    const mounts = projectMounts(project, perms(['.'], ['.']), hidden(root));
    expect(lastMountOver(mounts, join(project, '.ai/threads/T-1'))?.kind).toBe('tmpfs');
  });

  // Regression (was a bug in src/executor/sandbox/mounts.ts, projectMounts): the masks of `.ai/threads`,
  // `.ai/keys` and `.ai/trusted_keys` are added only when the folder exists
  // (`shown(path) && exists(path)`). A tool that may write `.ai/**` in a
  // project that has no `.ai/keys` or `.ai/trusted_keys` yet can create them
  // on the host (plant a key, a trust store entry, a forged transcript).
  it('keeps .ai/keys and .ai/trusted_keys out of a writable .ai even when they do not exist yet', () => {
    const { root, project } = tempProject(['.ai/plans/p.md']);
    const mounts = projectMounts(project, perms(['.'], ['.ai/**']), hidden(root));
    for (const rel of ['.ai/keys/k.pem', '.ai/trusted_keys/k.toml', '.ai/threads/T/t.jsonl']) {
      const over = lastMountOver(mounts, join(project, rel));
      expect(over?.kind, rel).not.toBe('rw');
    }
  });

  // A write entry must not undo a mask: binds come first, the `.ai` mask and the `!`
  // masks after them (an earlier version bound writes last and showed both again).
  it('a write entry does not undo a "!" mask or the .ai mask', () => {
    const { root, project } = tempProject(['private/x', '.ai/knowledge/k.md']);
    const mounts = projectMounts(project, perms(['.', '!private'], ['.']), hidden(root));
    expect(lastMountOver(mounts, join(project, 'private/x'))?.kind).toBe('tmpfs');
    expect(lastMountOver(mounts, join(project, '.ai/knowledge/k.md'))?.kind).toBe('tmpfs');
  });

  it('refuses a read through a symlink leading out of the project (SANDBOX_PATH_REFUSED)', () => {
    const { root, project, outside } = tempProject();
    symlinkSync(outside, join(project, 'linked'));
    expect(refusedCode(() => projectMounts(project, perms(['linked/**']), hidden(root)))).toBe(
      'SANDBOX_PATH_REFUSED',
    );
    expect(
      refusedCode(() => projectMounts(project, perms(['linked/secret.txt']), hidden(root))),
    ).toBe('SANDBOX_PATH_REFUSED');
  });

  it('refuses a symlink anywhere on the way, even one that stays inside the project', () => {
    const { root, project } = tempProject(['real/sub/file']);
    symlinkSync(join(project, 'real'), join(project, 'alias'));
    expect(refusedCode(() => projectMounts(project, perms(['alias/sub']), hidden(root)))).toBe(
      'SANDBOX_PATH_REFUSED',
    );
    expect(
      refusedCode(() => projectMounts(project, perms(['.'], ['alias/sub/**']), hidden(root))),
    ).toBe('SANDBOX_PATH_REFUSED');
  });

  it('refuses a write folder that is a symlink out of the project, and creates nothing there', () => {
    const { root, project, outside } = tempProject();
    symlinkSync(outside, join(project, 'out'));
    expect(refusedCode(() => projectMounts(project, perms([], ['out/new/**']), hidden(root)))).toBe(
      'SANDBOX_PATH_REFUSED',
    );
    expect(existsSync(join(outside, 'new'))).toBe(false);
  });

  it('refuses a mask through a symlink too', () => {
    const { root, project, outside } = tempProject();
    symlinkSync(outside, join(project, 'linked'));
    expect(
      refusedCode(() => projectMounts(project, perms(['.', '!linked/secret.txt']), hidden(root))),
    ).toBe('SANDBOX_PATH_REFUSED');
  });

  it('creates a missing write folder (and its parents) inside the project', () => {
    const { root, project } = tempProject();
    const mounts = projectMounts(project, perms([], ['build/out/**']), hidden(root));
    const dir = join(project, 'build/out');
    expect(existsSync(dir)).toBe(true);
    expect(mounts).toEqual([{ kind: 'rw', source: dir, target: dir }]);
  });

  it('a dry run (create = false) creates nothing but shows the bind it would make', () => {
    const { root, project } = tempProject();
    const mounts = projectMounts(project, perms(['.'], ['build/out/**']), hidden(root), false);
    const dir = join(project, 'build/out');
    expect(existsSync(join(project, 'build'))).toBe(false);
    expect(mounts).toContainEqual({ kind: 'rw', source: dir, target: dir });
  });

  it('leaves out a read entry that does not exist', () => {
    const { root, project } = tempProject();
    expect(projectMounts(project, perms(['missing/**']), hidden(root))).toEqual([]);
  });

  it('masks the user space and the home dot-folders when the project holds them', () => {
    const { root } = tempProject();
    // The project is the folder holding both the user space and the home folder.
    mkdirSync(join(root, 'user', '.ai', 'keys'), { recursive: true });
    mkdirSync(join(root, 'home', '.ssh'), { recursive: true });
    writeFileSync(join(root, 'home', '.ssh', 'id_rsa'), 'key');
    writeFileSync(join(root, 'home', 'notes.txt'), 'notes');
    const mounts = projectMounts(root, perms(['.']), hidden(root));
    expect(lastMountOver(mounts, join(root, 'user/.ai/keys'))?.kind).toBe('tmpfs');
    expect(lastMountOver(mounts, join(root, 'home/.ssh/id_rsa'))?.kind).toBe('tmpfs');
    expect(lastMountOver(mounts, join(root, 'home/notes.txt'))?.kind).toBe('ro');
  });

  // Regression (was a bug in src/executor/sandbox/mounts.ts, projectMounts): when the project *is* the user
  // space (rye run from the home folder: discovery then falls back to the cwd,
  // or `--project ~`), the user space's `.ai` is removed from the hidden paths
  // ("the project's own .ai follows the rules above"), so only .ai/threads,
  // .ai/keys and .ai/trusted_keys stay masked. A tool that reads `.ai/**`
  // (the system bundler does) sees the registry tokens, the project-trust
  // approvals and the user config; one that writes `.ai/**` (the registry
  // tool) can write `sandbox: off` into the user config. CONTAINMENT.md §1.5:
  // "never: the user space (~/.ai: keys, trust, cache, tokens)".
  it('when the project is the user space, .ai/** shows nothing of the user space', () => {
    const { root, project } = tempProject([
      '.ai/registry/tokens.json',
      '.ai/trust/approved-projects.json',
      '.ai/config.yaml',
      '.ai/keys/private_key.pem',
    ]);
    const userSpace = { userAi: join(project, '.ai'), home: join(root, 'home') };
    // `.ai` itself is never writable there: the tool could create the user's config.
    expect(() => projectMounts(project, perms(['.', '.ai/**'], ['.ai/**']), userSpace)).toThrow(
      /SANDBOX_PATH_REFUSED|user space/,
    );
    const mounts = projectMounts(project, perms(['.', '.ai/**'], ['.ai/plans/**']), userSpace);
    for (const rel of [
      '.ai/keys/private_key.pem',
      '.ai/registry/tokens.json',
      '.ai/trust/approved-projects.json',
      '.ai/config.yaml',
    ]) {
      const over = lastMountOver(mounts, join(project, rel));
      const masked = over?.kind === 'tmpfs' || (over?.kind === 'ro' && over.source === '/dev/null');
      expect(masked, rel).toBe(true);
    }
  });

  it('applies the same mount only once', () => {
    const { root, project } = tempProject(['.ai/x']);
    const mounts = projectMounts(project, perms(['.', '!.ai', '!.ai']), hidden(root));
    const keys = mounts.map((m) => `${m.kind} ${m.target}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

// ---------------------------------------------------------------------------
// sandboxEnv

function envInput(over: Partial<SandboxEnvInput> = {}): SandboxEnvInput {
  return {
    resolved: {
      PATH: '/opt/python/bin:relative/bin:/home/u/bin:/usr/bin:',
      PYTHONUNBUFFERED: '1',
      ANTHROPIC_API_KEY: 'sk-ant-resolved',
    },
    signedNames: ['PYTHONUNBUFFERED'],
    permitted: [],
    caller: {
      HOME: '/home/u',
      PATH: '/home/u/bin:/usr/bin',
      LANG: 'C.UTF-8',
      TZ: 'UTC',
      ANTHROPIC_API_KEY: 'sk-ant-caller',
      OPENAI_API_KEY: 'sk-openai-caller',
      RYE_CAP_TOKEN: 'cap-caller',
      RYE_MCP_HTTP_TOKEN: 'mcp-caller',
      GITHUB_TOKEN: 'gh-caller',
      NODE_OPTIONS: '--require /home/u/evil.js',
      LD_PRELOAD: '/home/u/evil.so',
      USER: 'u',
    },
    visible: ['/usr', '/opt/python', '/cache/snap'],
    programDir: '/opt/python/bin',
    home: '/tmp/home',
    rye: { RYE_VERIFIED_MANIFEST: '/tmp/m.json' },
    ...over,
  };
}

describe('sandboxEnv: built from nothing', () => {
  it('holds only PATH, HOME, TMPDIR, the locale, the signed names and rye variables', () => {
    const env = sandboxEnv(envInput());
    expect(Object.keys(env).sort()).toEqual(
      ['HOME', 'LANG', 'PATH', 'PYTHONUNBUFFERED', 'RYE_VERIFIED_MANIFEST', 'TMPDIR', 'TZ'].sort(),
    );
    expect(env['HOME']).toBe('/tmp/home');
    expect(env['TMPDIR']).toBe('/tmp');
  });

  it('passes nothing of the caller that is not permitted (USER, NODE_OPTIONS, LD_PRELOAD, tokens)', () => {
    const env = sandboxEnv(envInput());
    for (const name of ['USER', 'NODE_OPTIONS', 'LD_PRELOAD', 'GITHUB_TOKEN', 'RYE_CAP_TOKEN'])
      expect(env[name], name).toBeUndefined();
  });

  it('passes a permitted name from the caller', () => {
    const env = sandboxEnv(envInput({ permitted: ['GITHUB_TOKEN', 'NOT_SET'] }));
    expect(env['GITHUB_TOKEN']).toBe('gh-caller');
    expect('NOT_SET' in env).toBe(false);
  });

  it('never passes a secret, even permitted, even signed, even as a rye variable', () => {
    const env = sandboxEnv(
      envInput({
        permitted: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'RYE_CAP_TOKEN', 'RYE_MCP_HTTP_TOKEN'],
        signedNames: ['ANTHROPIC_API_KEY', 'PYTHONUNBUFFERED'],
        rye: { RYE_CAP_TOKEN: 'cap-rye', RYE_VERIFIED_MANIFEST: '/tmp/m.json' },
        caller: { ...envInput().caller, ACME_API_KEY: 'acme' },
      }),
    );
    for (const name of [
      'ANTHROPIC_API_KEY',
      'OPENAI_API_KEY',
      'RYE_CAP_TOKEN',
      'RYE_MCP_HTTP_TOKEN',
      'ACME_API_KEY',
    ])
      expect(env[name], name).toBeUndefined();
    const values = Object.values(env).join('\n');
    for (const value of ['sk-ant', 'sk-openai', 'cap-', 'mcp-caller'])
      expect(values).not.toContain(value);
  });

  it('PATH holds only absolute folders the sandbox sees, the program folder first, no duplicates', () => {
    const env = sandboxEnv(envInput());
    const path = (env['PATH'] ?? '').split(':');
    expect(path[0]).toBe('/opt/python/bin');
    expect(path).not.toContain('relative/bin');
    expect(path).not.toContain('');
    expect(path).not.toContain('/home/u/bin');
    for (const dir of path) {
      expect(dir.startsWith('/'), dir).toBe(true);
      expect(
        ['/usr', '/opt/python', '/cache/snap'].some((v) => dir === v || dir.startsWith(`${v}/`)),
      ).toBe(true);
    }
    expect(new Set(path).size).toBe(path.length);
  });

  it('a visible folder is matched by whole segments (/usr does not show /usrlocal)', () => {
    const env = sandboxEnv(envInput({ resolved: { PATH: '/usrlocal/bin:/usr/bin' } }));
    expect((env['PATH'] ?? '').split(':')).not.toContain('/usrlocal/bin');
  });

  it('does not take PATH from the caller directly', () => {
    const env = sandboxEnv(envInput({ resolved: {} }));
    expect(env['PATH']).not.toContain('/home/u');
  });

  it('returns an object without a prototype (no inherited names)', () => {
    expect(Object.getPrototypeOf(sandboxEnv(envInput()))).toBeNull();
  });
});
