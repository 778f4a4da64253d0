import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRyeError, type RyeError } from '../../../src/errors/index.js';
import {
  VerifiedFileCache,
  depsBase,
  verifyDependencies,
} from '../../../src/executor/deps/verify-deps.js';
import type { VerifyDepsConfig } from '../../../src/executor/types.js';
import { sha256Hex, signText, type TrustSet } from '../../../src/integrity/index.js';
import { makeSigner } from '../../helpers/keys.js';

const { signer, trust } = makeSigner();
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const PYTHON_DEPS: VerifyDepsConfig = {
  enabled: true,
  scope: 'anchor',
  recursive: true,
  extensions: ['.py', '.yaml', '.yml', '.json'],
  excludeDirs: ['__pycache__', '.venv', 'node_modules', '.git'],
};

/** The seed's `threads/` layout: 30 signed .py files and a signed config. */
const TOP = [
  '__init__.py',
  'thread_directive.py',
  'module_loader.py',
  'runner.py',
  'safety_harness.py',
  'orchestrator.py',
];
const SUB: Record<string, string[]> = {
  adapters: [
    'tool_dispatcher.py',
    'provider_adapter.py',
    'http_adapter.py',
    'mcp_adapter.py',
    'sink.py',
  ],
  events: ['event_emitter.py', 'event_types.py', 'bus.py', 'filters.py', 'replay.py'],
  loaders: [
    'config_loader.py',
    'condition_evaluator.py',
    'hooks_loader.py',
    'resilience_loader.py',
    'schema.py',
  ],
  persistence: [
    'transcript.py',
    'thread_registry.py',
    'budgets.py',
    'state_store.py',
    'artifacts.py',
  ],
};
const SIGNED = [
  ...TOP,
  'thread_config.yaml',
  ...Object.entries(SUB).flatMap(([dir, files]) =>
    ['__init__.py', ...files].map((f) => `${dir}/${f}`),
  ),
].sort();

function sign(rel: string, text: string): string {
  return signText(text, { itemType: 'tool', extension: rel.slice(rel.lastIndexOf('.')), signer })
    .text;
}

function write(base: string, rel: string, content: string | Buffer): string {
  const path = join(base, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

function tempRoot(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'rye-deps-')));
  roots.push(root);
  return root;
}

/** Build the threads tree under a fresh temp root; returns the threads folder. */
function threadsTree(): string {
  const threads = join(tempRoot(), 'threads');
  for (const rel of SIGNED)
    write(threads, rel, sign(rel, `# ${rel}\nVALUE = ${JSON.stringify(rel)}\n`));
  write(threads, '__pycache__/runner.cpython-311.pyc', Buffer.from([0, 1, 2, 3]));
  write(threads, '__pycache__/stale.py', 'unsigned = True\n');
  write(threads, 'node_modules/dep/index.json', '{"unsigned": true}');
  write(threads, 'README.txt', 'not a listed extension\n');
  return threads;
}

async function run(
  base: string,
  config = PYTHON_DEPS,
  cache = new VerifiedFileCache(),
  t: TrustSet = trust,
) {
  return verifyDependencies({ base, config, trust: t, cache });
}

async function failure(promise: Promise<unknown>): Promise<RyeError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isRyeError(error)) throw new Error(`expected a RyeError, got ${String(error)}`);
  return error;
}

describe('depsBase()', () => {
  const tool = '/p/.ai/tools/threads/thread_directive.py';
  it('maps each scope to the folder it walks', () => {
    expect(depsBase({ ...PYTHON_DEPS, scope: 'tool_file' }, tool, '/anchor')).toBeNull();
    expect(depsBase({ ...PYTHON_DEPS, scope: 'tool_siblings' }, tool, '/anchor')).toBe(
      '/p/.ai/tools/threads',
    );
    expect(depsBase({ ...PYTHON_DEPS, scope: 'tool_dir' }, tool, '/anchor')).toBe(
      '/p/.ai/tools/threads',
    );
    expect(depsBase(PYTHON_DEPS, tool, '/anchor')).toBe('/anchor');
  });
});

describe('verifyDependencies()', () => {
  it('accepts a fully signed tree and reports every file in path order', async () => {
    const threads = threadsTree();
    const report = await run(threads);
    expect(report.files.map((f) => f.relativePath)).toEqual(SIGNED);
    expect(SIGNED.filter((p) => p.endsWith('.py'))).toHaveLength(30);
    expect(report).toMatchObject({ base: threads, scope: 'anchor', verified: 31, cacheHits: 0 });
    const loader = report.files.find((f) => f.relativePath === 'loaders/hooks_loader.py');
    const bytes = readFileSync(join(threads, 'loaders/hooks_loader.py'));
    expect(loader?.absolutePath).toBe(join(threads, 'loaders', 'hooks_loader.py'));
    expect(loader?.rawSha256).toBe(sha256Hex(bytes));
    expect(loader?.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(loader?.contentHash).toBe(
      /rye:signed:[^:]+:[^:]+:[^:]+:([0-9a-f]{64})/.exec(bytes.toString())?.[1],
    );
  });

  it('does not walk excluded folders or check unlisted extensions', async () => {
    const report = await run(threadsTree());
    const paths = report.files.map((f) => f.relativePath);
    expect(paths.some((p) => p.startsWith('__pycache__/') || p.startsWith('node_modules/'))).toBe(
      false,
    );
    expect(paths).not.toContain('README.txt');
  });

  it('rejects a sibling edited after signing with INTEGRITY_HASH_MISMATCH naming it', async () => {
    const threads = threadsTree();
    const path = join(threads, 'loaders', 'hooks_loader.py');
    writeFileSync(path, readFileSync(path, 'utf8') + 'import os; os.system("curl evil")\n');
    const error = await failure(run(threads));
    expect(error.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(error.message).toMatch(/^Cannot verify dependency loaders\/hooks_loader\.py in /);
    expect(error.details).toMatchObject({
      path,
      relativePath: 'loaders/hooks_loader.py',
      verdict: 'hash_mismatch',
    });
  });

  it('rejects an unsigned file added to a subfolder with INTEGRITY_UNSIGNED naming it', async () => {
    const threads = threadsTree();
    write(threads, 'persistence/backdoor.py', 'import os\n');
    const error = await failure(run(threads));
    expect(error.code).toBe('INTEGRITY_UNSIGNED');
    expect(error.message).toContain('persistence/backdoor.py');
    expect(error.details['path']).toBe(join(threads, 'persistence', 'backdoor.py'));
  });

  it('rejects a file signed by a key outside the trust set with INTEGRITY_UNTRUSTED_KEY', async () => {
    const threads = threadsTree();
    const other = makeSigner('mallory');
    write(
      threads,
      'runner.py',
      signText('X = 1\n', { itemType: 'tool', extension: '.py', signer: other.signer }).text,
    );
    expect((await failure(run(threads))).code).toBe('INTEGRITY_UNTRUSTED_KEY');
  });

  it('checks listed extensions case-insensitively', async () => {
    const threads = threadsTree();
    write(threads, 'loaders/LOUD.PY', 'import os\n');
    const error = await failure(run(threads));
    expect(error.code).toBe('INTEGRITY_UNSIGNED');
    expect(error.message).toContain('loaders/LOUD.PY');
  });

  it('rejects a symlink to /etc/passwd with INTEGRITY_SYMLINK_ESCAPE naming link and target', async () => {
    const threads = threadsTree();
    symlinkSync('/etc/passwd', join(threads, 'loaders', 'passwd.py'));
    const error = await failure(run(threads));
    expect(error.code).toBe('INTEGRITY_SYMLINK_ESCAPE');
    expect(error.message).toContain('loaders/passwd.py');
    expect(error.details).toMatchObject({
      link: join(threads, 'loaders', 'passwd.py'),
      target: '/etc/passwd',
    });
  });

  it('rejects a symlink to a folder outside, whatever its name', async () => {
    const threads = threadsTree();
    const outside = join(dirname(threads), 'outside');
    write(outside, 'evil.py', 'import os\n');
    symlinkSync(outside, join(threads, 'adapters', 'vendor'));
    const error = await failure(run(threads));
    expect(error.code).toBe('INTEGRITY_SYMLINK_ESCAPE');
    expect(error.details).toMatchObject({ relativePath: 'adapters/vendor', target: outside });
  });

  it('rejects a dangling symlink that points outside', async () => {
    const threads = threadsTree();
    symlinkSync(join(dirname(threads), 'not-yet.py'), join(threads, 'later.py'));
    expect((await failure(run(threads))).code).toBe('INTEGRITY_SYMLINK_ESCAPE');
  });

  it('verifies the target of a symlinked file inside and does not descend into symlinked folders', async () => {
    const threads = threadsTree();
    symlinkSync(join(threads, 'runner.py'), join(threads, 'alias.py'));
    symlinkSync(join(threads, 'loaders'), join(threads, 'loaders_again'));
    symlinkSync('.', join(threads, 'loop'));
    const report = await run(threads);
    expect(report.files.map((f) => f.relativePath)).toEqual([...SIGNED, 'alias.py'].sort());

    writeFileSync(join(threads, 'runner.py'), 'tampered = True\n');
    const error = await failure(run(threads));
    expect(error.code).toBe('INTEGRITY_UNSIGNED');
    expect(error.message).toContain('alias.py');
  });

  it('reports files in code-point order, as the lockfile serializes them', async () => {
    const base = tempRoot();
    // UTF-16 `<` puts the astral name (a surrogate pair, 0xD83D…) before U+FF5E.
    const names = ['\uff5e.py', '\u{1f600}.py', 'a.py'];
    for (const rel of names) write(base, rel, sign(rel, `# ${rel}\n`));
    const report = await run(base);
    expect(report.files.map((f) => f.relativePath)).toEqual(['a.py', '\uff5e.py', '\u{1f600}.py']);
  });

  it('treats a file named ..x.py and a link to the base itself as inside', async () => {
    const base = tempRoot();
    write(base, '..x.py', sign('..x.py', 'x = 1\n'));
    symlinkSync(join(base, '..x.py'), join(base, 'alias.py'));
    symlinkSync(base, join(base, 'self'));
    const report = await run(base);
    expect(report.files.map((f) => f.relativePath)).toEqual(['..x.py', 'alias.py']);
  });

  it('stays at the top level for tool_siblings and for recursive: false', async () => {
    const threads = threadsTree();
    write(threads, 'loaders/unsigned.py', 'x = 1\n');
    const top = [...TOP, 'thread_config.yaml'].sort();
    for (const config of [
      { ...PYTHON_DEPS, scope: 'tool_siblings' as const },
      { ...PYTHON_DEPS, recursive: false },
    ]) {
      const report = await run(threads, config);
      expect(report.files.map((f) => f.relativePath)).toEqual(top);
    }
  });

  it('does no signature work on a warm run, and still catches an edit made after it', async () => {
    const threads = threadsTree();
    const cache = new VerifiedFileCache();
    await run(threads, PYTHON_DEPS, cache);
    const warm = await run(threads, PYTHON_DEPS, cache);
    expect(warm).toMatchObject({ verified: 0, cacheHits: warm.files.length });

    const path = join(threads, 'safety_harness.py');
    writeFileSync(path, readFileSync(path, 'utf8').replace('VALUE', 'BYPASS'));
    const error = await failure(run(threads, PYTHON_DEPS, cache));
    expect(error.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(error.message).toContain('safety_harness.py');
  });

  it('ignores cached verdicts once the signing key is no longer trusted', async () => {
    const threads = threadsTree();
    const cache = new VerifiedFileCache();
    await run(threads, PYTHON_DEPS, cache);
    const error = await failure(run(threads, PYTHON_DEPS, cache, makeSigner('other').trust));
    expect(error.code).toBe('INTEGRITY_UNTRUSTED_KEY');
  });

  it('refuses a symlink escape before verifying any file', async () => {
    const threads = threadsTree();
    write(threads, 'adapters/aaa_unsigned.py', 'x = 1\n');
    symlinkSync('/etc', join(threads, 'zz_etc'));
    expect((await failure(run(threads))).code).toBe('INTEGRITY_SYMLINK_ESCAPE');
  });

  it('rejects a binary file with a listed extension with FILE_BINARY naming it', async () => {
    const threads = threadsTree();
    write(threads, 'loaders/data.json', Buffer.from([0x7b, 0x00, 0x7d]));
    const error = await failure(run(threads));
    expect(error.code).toBe('FILE_BINARY');
    expect(error.message).toContain('loaders/data.json');
  });

  it.skipIf(process.platform === 'win32')(
    'rejects a FIFO with a listed extension instead of blocking on it',
    async () => {
      const threads = threadsTree();
      execFileSync('mkfifo', [join(threads, 'pipe.py')]);
      const error = await failure(run(threads));
      expect(error.code).toBe('FILE_UNREADABLE');
      expect(error.message).toContain('pipe.py');
    },
  );

  it('fails with FILE_UNREADABLE when the base folder does not exist', async () => {
    const error = await failure(run(join(tempRoot(), 'missing')));
    expect(error.code).toBe('FILE_UNREADABLE');
  });
});

describe('VerifiedFileCache', () => {
  it('keeps at most its bound, dropping the least recently used entry', () => {
    const cache = new VerifiedFileCache(2);
    const entry = { contentHash: 'h', fingerprint: 'f', publicKeyPem: 'p' };
    const keys = trustWith('f', 'p');
    cache.remember('a', entry);
    cache.remember('b', entry);
    expect(cache.lookup('a', keys)).toBe('h');
    cache.remember('c', entry);
    expect(cache.size).toBe(2);
    expect(cache.lookup('b', keys)).toBeUndefined();
    expect(cache.lookup('a', keys)).toBe('h');
  });
});

function trustWith(fingerprint: string, publicKeyPem: string): TrustSet {
  return new Map([[fingerprint, { publicKeyPem } as never]]);
}
