import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute, updateLockfile, type ExecuteResult } from '../../src/executor/index.js';
import { readSigner, signText } from '../../src/integrity/index.js';
import { keyDir, loadSpaceTrust } from '../../src/items/index.js';
import type { ErrorCode } from '../../src/errors/index.js';
import { refusal } from '../helpers/refusal.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { THREADS_DIR, TS_TOOL_DIR, writeThreadsTool, writeTsTool } from '../helpers/tool-trees.js';

// The fixture tools write their marker in the project's markers/, which they declare in `write`.
async function threadsProject(): Promise<{ p: ExecProject; id: string; marker: string }> {
  const p = await makeExecProject();
  const id = writeThreadsTool(p);
  await p.sign('tool', 'apps/agent/threads/**');
  return { p, id, marker: join(p.project, 'markers', 'marker') };
}

const run = (
  p: ExecProject,
  toolId: string,
  params: unknown = {},
  extra: Partial<Parameters<typeof execute>[0]> = {},
): Promise<ExecuteResult> => execute({ spaces: p.spaces, toolId, params, env: p.env, ...extra });

describe('execute(): the seed scenario (multi-file Python tool)', () => {
  it('runs thread_directive through python_script_runtime with its siblings and runtime library', async () => {
    const { p, id, marker } = await threadsProject();
    const result = await run(p, id, { marker });
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(result.data).toMatchObject({
      success: true,
      harness: 'harness-ok',
      hooks: ['after_complete'],
      dispatch: 'dispatched:demo',
    });
    expect(readFileSync(marker, 'utf8')).toBe('ran');
    expect(result.chain.map((e) => [e.item_id, e.space, e.tool_type])).toEqual([
      [id, 'project', 'python'],
      ['rye/core/runtimes/python_script_runtime', 'system', 'runtime'],
      ['rye/core/primitives/subprocess', 'system', 'primitive'],
    ]);
    for (const e of result.chain) expect(e.integrity).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads the duration it reports from the clock it is given (a thread rerun reports the same)', async () => {
    const { p, id, marker } = await threadsProject();
    let reads = 0;
    const clock = { now: () => 1_000 + 7.25 * reads++ };
    const result = await run(p, id, { marker }, { clock });
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(reads).toBe(2);
    expect(result.metadata.duration_ms).toBe(7.3);
  });

  it('--dry-run plans without spawning and lists every verified file', async () => {
    const { p, id, marker } = await threadsProject();
    const result = await run(p, id, { marker }, { dryRun: true });
    expect(result.status).toBe('success');
    expect(existsSync(marker)).toBe(false);
    const plan = result.plan;
    // The tool runs from its verified snapshot (under the user's cache), not from the project.
    const snapshot = plan?.snapshot ?? '';
    expect(snapshot.startsWith(join(p.user, '.ai', 'cache', 'snapshots'))).toBe(true);
    expect(plan?.argv?.slice(1, 3)).toEqual([
      join(snapshot, 's', 'thread_directive.py'),
      '--params',
    ]);
    expect(plan?.anchor).toEqual({ applied: true, path: join(snapshot, 's') });
    expect(existsSync(snapshot)).toBe(false); // a dry run writes nothing
    expect(plan?.env_keys).toEqual(expect.arrayContaining(['PYTHONPATH', 'RYE_PYTHON']));
    const files = plan?.files_verified ?? [];
    expect(files.some((f) => f.endsWith('loaders/hooks_loader.py'))).toBe(true);
    expect(files.some((f) => f.endsWith('lib/python/module_loader.py'))).toBe(true);
    expect(files.some((f) => f.includes('__pycache__'))).toBe(false);
  });

  it('never runs bytecode planted in __pycache__ beside verified sources', async () => {
    const { p, id, marker } = await threadsProject();
    const loaders = join(p.project, THREADS_DIR, 'loaders');
    const evil = join(p.root, 'evil', 'hooks_loader.py');
    mkdirSync(dirname(evil), { recursive: true });
    writeFileSync(evil, 'def hooks():\n    return ["pwned"]\n');
    // An unchecked-hash .pyc is used by Python without looking at the source at all.
    const script = [
      'import importlib.util, py_compile, sys',
      'target = importlib.util.cache_from_source(sys.argv[2])',
      'py_compile.compile(sys.argv[1], cfile=target, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)',
    ].join('; ');
    execFileSync('python3', ['-c', script, evil, join(loaders, 'hooks_loader.py')]);
    const result = await run(p, id, { marker });
    expect(result.status).toBe('success');
    expect(result.data).toMatchObject({ hooks: ['after_complete'] });
  });

  const refusals: [string, (p: ExecProject) => void, ErrorCode, string][] = [
    [
      'a sibling edited after signing',
      (p) => appendFileSync(join(p.project, THREADS_DIR, 'safety_harness.py'), 'import os\n'),
      'INTEGRITY_HASH_MISMATCH',
      'safety_harness.py',
    ],
    [
      'a new unsigned file in a subfolder',
      (p) => p.write(`${THREADS_DIR}/loaders/backdoor.py`, 'import os\n'),
      'INTEGRITY_UNSIGNED',
      'loaders/backdoor.py',
    ],
    [
      'a symlink pointing outside the folder',
      (p) => {
        writeFileSync(join(p.root, 'outside.py'), 'print(1)\n');
        symlinkSync(join(p.root, 'outside.py'), join(p.project, THREADS_DIR, 'loaders/linked.py'));
      },
      'INTEGRITY_SYMLINK_ESCAPE',
      'linked.py',
    ],
    [
      'an edited runtime YAML',
      (p) =>
        appendFileSync(
          join(p.system, '.ai/tools/rye/core/runtimes/python_script_runtime.yaml'),
          '# edited\n',
        ),
      'INTEGRITY_HASH_MISMATCH',
      'python_script_runtime.yaml',
    ],
    [
      'an edited runtime library file',
      (p) =>
        appendFileSync(
          join(p.system, '.ai/tools/rye/core/runtimes/lib/python/module_loader.py'),
          'import os\n',
        ),
      'INTEGRITY_HASH_MISMATCH',
      'module_loader.py',
    ],
  ];
  for (const [what, tamper, code, named] of refusals) {
    it(`refuses ${what} before anything runs (${code})`, async () => {
      const { p, id, marker } = await threadsProject();
      tamper(p);
      const refused = await refusal(run(p, id, { marker }));
      expect(refused.code).toBe(code);
      expect(refused.message).toContain(named);
      expect(existsSync(marker), 'the tool must not have run').toBe(false);
    });
  }
});

describe('execute(): a multi-file TypeScript tool', () => {
  it('runs main.ts with its sibling module, its own node_modules dependency and @rye/runtime', async () => {
    const p = await makeExecProject();
    const id = writeTsTool(p);
    await p.sign('tool', 'apps/ts-demo/**');
    const marker = join(p.project, 'markers', 'ts-marker');
    // node_modules is third-party code: it runs only once the user pinned it.
    const unpinned = await refusal(run(p, id, { marker, word: 'hello' }));
    expect(unpinned.code).toBe('EXECUTOR_THIRD_PARTY_UNPINNED');
    expect(unpinned.message).toContain('node_modules/tiny-pad/');
    expect(unpinned.message).toContain(`rye lock update ${id}`);
    expect(existsSync(marker)).toBe(false);
    await updateLockfile(p.spaces, id, (await loadSpaceTrust(p.spaces)).trust);
    const result = await run(p, id, { marker, word: 'hello' });
    expect(result.status, JSON.stringify(result)).toBe('success');
    const plan = (await run(p, id, { marker, word: 'x' }, { dryRun: true })).plan;
    expect(result.data).toMatchObject({
      success: true,
      word: '[HELLO!]',
      cwd: join(plan?.snapshot ?? '', 's'),
    });
    expect(plan?.files_verified.some((f) => f.includes('node_modules/tiny-pad/index.js'))).toBe(
      true,
    );
    expect(plan?.files_verified.some((f) => f.endsWith('package.json'))).toBe(true);
  });

  it('refuses an edited sibling module before spawning', async () => {
    const p = await makeExecProject();
    const id = writeTsTool(p);
    await p.sign('tool', 'apps/ts-demo/**');
    appendFileSync(join(p.project, TS_TOOL_DIR, 'lib/format.ts'), 'export const evil = 1;\n');
    const marker = join(p.project, 'markers', 'ts-marker');
    const refused = await refusal(run(p, id, { marker, word: 'x' }));
    expect(refused.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(refused.message).toContain('lib/format.ts');
    expect(existsSync(marker)).toBe(false);
  });
});

const pyTool = (
  category: string,
  body: string,
  extra = '',
  executor = 'rye/core/runtimes/python_script_runtime',
): string => `import json, sys
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "${executor}"
__category__ = "${category}"
__tool_description__ = "test tool"
${extra}
${body}
`;

/** Lets a tool write the project's markers/ (singleTool makes it, so it is there with the sandbox off too). */
const WRITES_MARKERS = '__permissions__ = {"write": ["markers"]}';

async function singleTool(
  body: string,
  extra = '',
  sandbox: 'on' | 'off' = 'on',
): Promise<{ p: ExecProject; id: string }> {
  const p = await makeExecProject(sandbox === 'off' ? { sandbox: 'off' } : {});
  mkdirSync(join(p.project, 'markers'), { recursive: true });
  p.write('.ai/tools/t/one.py', pyTool('t', body, extra));
  await p.sign('tool', 't/one');
  return { p, id: 't/one' };
}

describe('execute(): single-file tools and tool output', () => {
  it('runs a single-file tool with no markers without walking its folder', async () => {
    const { p, id } = await singleTool('print(json.dumps({"n": 1}))');
    p.write('.ai/tools/t/unsigned_sibling.py', 'x = 1\n');
    const result = await run(p, id);
    expect(result).toMatchObject({ status: 'success', data: { n: 1 } });
    const plan = (await run(p, id, {}, { dryRun: true })).plan;
    expect(plan?.anchor.applied).toBe(false);
    expect(plan?.files_verified).toHaveLength(3);
  });

  it('passes non-JSON output through as stdout, stderr and return_code', async () => {
    const { p, id } = await singleTool('print("hello"); print("warn", file=sys.stderr)');
    expect(await run(p, id)).toMatchObject({
      status: 'success',
      data: { stdout: 'hello\n', stderr: 'warn\n', return_code: 0 },
    });
  });

  it('fails the call when the tool reports "success": false or exits non-zero', async () => {
    const { p, id } = await singleTool(
      'print(json.dumps({"success": False, "error": "no such task"}))',
    );
    expect(await run(p, id)).toMatchObject({
      status: 'error',
      error: { code: 'EXECUTE_TOOL_FAILED' },
      data: { success: false },
    });
    const other = await singleTool('sys.exit(4)');
    expect(await run(other.p, other.id)).toMatchObject({
      status: 'error',
      data: { return_code: 4 },
    });
  });

  it('keeps shell metacharacters in params literal: nothing is injected', async () => {
    const { p, id } = await singleTool(
      'print(json.dumps(json.loads(sys.argv[2])))',
      WRITES_MARKERS,
    );
    const pwned = join(p.project, 'markers', 'pwned');
    const nasty = `; touch ${pwned} && $(touch ${pwned}) | \`touch ${pwned}\``;
    const result = await run(p, id, { value: nasty, 'x; rm': '&&' });
    expect(result).toMatchObject({ status: 'success', data: { value: nasty, 'x; rm': '&&' } });
    expect(existsSync(pwned)).toBe(false);
  });

  it('refuses params that fail the config_schema with every problem listed (PARAMS_INVALID)', async () => {
    const schema =
      'CONFIG_SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}, "required": ["n", "s"], "additionalProperties": False}';
    const { p, id } = await singleTool('print("{}")', schema);
    const refused = await refusal(run(p, id, { n: 'x', extra: 1 }));
    expect(refused.code).toBe('PARAMS_INVALID');
    expect((refused.details['issues'] as unknown[]).length).toBeGreaterThanOrEqual(3);
  });

  // Both ways: the kill is the subprocess primitive's own; sandboxed, the pid the
  // tool sees is its PID namespace's, so the grandchild is found by its command line.
  it.each(['on', 'off'] as const)(
    'kills the whole process tree on timeout (sandbox %s)',
    async (sandbox) => {
      const pidFile = 'PID_FILE';
      const seconds = `60.${process.pid}${Date.now() % 100000}`;
      const body = `import subprocess, time
p = subprocess.Popen(["sleep", ${JSON.stringify(seconds)}])
open(json.loads(sys.argv[2])["pid_file"], "w").write(str(p.pid))
time.sleep(60)`;
      const { p, id } = await singleTool(
        body,
        `CONFIG = {"timeout": 1}\n${WRITES_MARKERS}`,
        sandbox,
      );
      const pidPath = join(p.project, 'markers', pidFile);
      const result = await run(p, id, { pid_file: pidPath });
      expect(result).toMatchObject({ status: 'error', error: { code: 'EXECUTE_TIMEOUT' } });
      const grandchild = Number(readFileSync(pidPath, 'utf8'));
      expect(grandchild).toBeGreaterThan(0);
      if (sandbox === 'off')
        await expect.poll(() => alive(grandchild), { timeout: 5000 }).toBe(false);
      await expect.poll(() => running(['sleep', seconds]), { timeout: 5000 }).toEqual([]);
    },
  );

  it('reports a missing interpreter as EXECUTE_COMMAND_NOT_FOUND', async () => {
    const { p, id } = await singleTool('print(1)');
    const result = await run(p, id, {}, { env: { ...p.env, RYE_PYTHON: '/nonexistent/python9' } });
    expect(result).toMatchObject({ status: 'error', error: { code: 'EXECUTE_COMMAND_NOT_FOUND' } });
  });

  it('caps output beyond max_output_bytes with a truncation marker', async () => {
    const { p, id } = await singleTool(
      'print("x" * 200000)',
      'CONFIG = {"max_output_bytes": 1000}',
    );
    const result = await run(p, id);
    const data = result.data as { stdout: string };
    expect(data.stdout.length).toBeLessThan(1200);
    expect(data.stdout).toContain('truncated');
  });

  it('refuses an item id with ..', async () => {
    const p = await makeExecProject();
    expect((await refusal(run(p, '../t/one'))).code).toBe('ITEM_ID_INVALID');
  });
});

describe('execute(): chain refusals', () => {
  const runtimeYaml = (id: string, executor: string | null, toolType = 'runtime'): string =>
    `version: "1.0.0"\ntool_type: ${toolType}\nexecutor_id: ${executor ?? 'null'}\ncategory: ${id.slice(0, id.lastIndexOf('/'))}\ndescription: "link ${id}"\n`;

  it('refuses a cycle', async () => {
    const p = await makeExecProject();
    p.write('.ai/tools/c/a.yaml', runtimeYaml('c/a', 'c/b'));
    p.write('.ai/tools/c/b.yaml', runtimeYaml('c/b', 'c/a'));
    await p.sign('tool', 'c/*');
    expect((await refusal(run(p, 'c/a'))).code).toBe('EXECUTOR_CHAIN_CYCLE');
  });

  it('refuses an 11-link chain', async () => {
    const p = await makeExecProject();
    for (let i = 0; i < 11; i += 1)
      p.write(
        `.ai/tools/l/l${i}.yaml`,
        runtimeYaml(`l/l${i}`, i === 10 ? 'rye/core/primitives/subprocess' : `l/l${i + 1}`),
      );
    await p.sign('tool', 'l/*');
    expect((await refusal(run(p, 'l/l0'))).code).toBe('EXECUTOR_CHAIN_TOO_LONG');
  });

  it('refuses a missing runtime', async () => {
    const p = await makeExecProject();
    p.write('.ai/tools/t/one.py', pyTool('t', 'print(1)', '', 'rye/core/runtimes/no_such_runtime'));
    await p.sign('tool', 't/one');
    const refused = await refusal(run(p, 't/one'));
    expect(refused.code).toBe('EXECUTOR_MISSING_LINK');
    expect(refused.message).toContain('rye/core/runtimes/no_such_runtime');
  });

  it('refuses an unsigned primitive', async () => {
    const { p, id } = await singleTool('print(1)');
    const prim = join(p.system, '.ai/tools/rye/core/primitives/subprocess.yaml');
    writeFileSync(prim, readFileSync(prim, 'utf8').split('\n').slice(1).join('\n'));
    const refused = await refusal(run(p, id));
    expect(refused.code).toBe('INTEGRITY_UNSIGNED');
    expect(refused.message).toContain('subprocess.yaml');
  });

  it('refuses a chain that does not end at a primitive', async () => {
    const p = await makeExecProject();
    p.write('.ai/tools/r/top.yaml', runtimeYaml('r/top', null, 'runtime'));
    await p.sign('tool', 'r/top');
    expect((await refusal(run(p, 'r/top'))).code).toBe('EXECUTOR_ROOT_NOT_PRIMITIVE');
  });

  it('ignores a signed project file shadowing the primitive of a system runtime (rye/ is reserved)', async () => {
    // Before rye/ was reserved this was EXECUTOR_SPACE_VIOLATION; now the project
    // file is never resolved and the system primitive runs.
    const { p, id } = await singleTool('print(json.dumps({"n": 1}))');
    const signer = await readSigner(keyDir(p.spaces));
    p.write(
      '.ai/tools/rye/core/primitives/subprocess.yaml',
      signText(runtimeYaml('rye/core/primitives/subprocess', null, 'primitive'), {
        itemType: 'tool',
        extension: '.yaml',
        signer,
      }).text,
    );
    const result = await run(p, id);
    expect(result).toMatchObject({ status: 'success', data: { n: 1 } });
    expect(result.chain?.at(-1)).toMatchObject({
      item_id: 'rye/core/primitives/subprocess',
      space: 'system',
    });
  });

  it('refuses a user tool whose runtime resolves in project space (EXECUTOR_SPACE_VIOLATION)', async () => {
    const p = await makeExecProject();
    p.write('.ai/tools/r/rt.yaml', runtimeYaml('r/rt', 'rye/core/primitives/subprocess'));
    await p.sign('tool', 'r/rt');
    const signer = await readSigner(keyDir(p.spaces));
    p.write(
      '.ai/tools/u/top.py',
      signText(pyTool('u', 'print(1)', '', 'r/rt'), { itemType: 'tool', extension: '.py', signer })
        .text,
      p.user,
    );
    const refused = await refusal(run(p, 'u/top'));
    expect(refused.code).toBe('EXECUTOR_SPACE_VIOLATION');
  });
});

/** Host pids whose command line is exactly `argv`. */
function running(argv: readonly string[]): number[] {
  const want = argv.join('\0') + '\0';
  return readdirSync('/proc')
    .filter((name) => /^[0-9]+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, 'utf8') === want;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
