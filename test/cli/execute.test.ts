import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RYE_BIN, rye } from '../helpers/cli.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { writeTsTool } from '../helpers/tool-trees.js';

const tool = (body: string, extra = ''): string => `import json, sys
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "cli test tool"
${extra}
${body}
`;

/** Lets the tool write the project's markers/ (made by project(), for the sandbox off too). */
const WRITES_MARKERS = '__permissions__ = {"write": ["markers"]}';

async function project(
  body: string,
  extra = '',
  sandbox: 'on' | 'off' = 'on',
): Promise<ExecProject> {
  const p = await makeExecProject(sandbox === 'off' ? { sandbox: 'off' } : {});
  mkdirSync(join(p.project, 'markers'));
  p.write('.ai/tools/t/echo.py', tool(body, extra));
  await p.sign('tool', 't/echo');
  return p;
}

const exec = (p: ExecProject, ...args: string[]) =>
  rye(['execute', 'tool', 't/echo', '--project', p.project, ...args], { env: p.env });

describe('rye execute tool', () => {
  it('prints the result document and exits 0', async () => {
    const p = await project('print(json.dumps({"got": json.loads(sys.argv[2])}))');
    const res = await exec(p, '--params', '{"x": 1}', '--json');
    expect(res.code, res.stderr).toBe(0);
    const doc = res.json();
    expect(doc).toMatchObject({
      ok: true,
      status: 'success',
      item_id: 't/echo',
      data: { got: { x: 1 } },
    });
    expect(Object.keys(doc).sort()).toEqual([
      'chain',
      'data',
      'item_id',
      'metadata',
      'ok',
      'status',
    ]);
    expect(doc['metadata']).toMatchObject({ lockfile_used: false, lockfile_created: true });
    expect((doc['chain'] as unknown[]).length).toBe(3);
  });

  it('reads --params-file and exits 1 when the tool fails', async () => {
    const p = await project('sys.exit(2)');
    const file = join(p.root, 'params.json');
    writeFileSync(file, '{"a": "b"}');
    const res = await exec(p, '--params-file', file, '--json');
    expect(res.code).toBe(1);
    expect(res.json()).toMatchObject({
      status: 'error',
      error: { code: 'EXECUTE_TOOL_FAILED' },
      data: { return_code: 2 },
    });
  });

  it('exits 3 with the result shape when a file was tampered with, and runs nothing', async () => {
    const p = await project(
      'open(sys.argv[2] and json.loads(sys.argv[2])["m"], "w").write("ran")',
      WRITES_MARKERS,
    );
    appendFileSync(join(p.project, '.ai/tools/t/echo.py'), '# edit\n');
    const marker = join(p.project, 'markers', 'm');
    const res = await exec(p, '--params', JSON.stringify({ m: marker }), '--json');
    expect(res.code).toBe(3);
    expect(res.json()).toMatchObject({
      status: 'error',
      item_id: 't/echo',
      error: { code: 'INTEGRITY_HASH_MISMATCH' },
    });
    expect(existsSync(marker)).toBe(false);
  });

  it('--dry-run shows the plan and spawns nothing', async () => {
    const p = await project('print("never")');
    const res = await exec(p, '--dry-run');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('dry run — nothing was spawned');
    expect(res.stdout).toContain('argv:');
    expect(res.stdout).not.toContain('never\n');
  });

  for (const [what, args] of [
    ['invalid --params JSON', ['--params', '{bad']],
    ['--params that is not an object', ['--params', '[1, 2]']],
    ['both --params and --params-file', ['--params', '{}', '--params-file', 'x.json']],
  ] as const) {
    it(`exits 2 for ${what}`, async () => {
      const p = await project('print(1)');
      const res = await exec(p, ...args, '--json');
      expect(res.code).toBe(2);
      expect(res.json()).toMatchObject({ ok: false, error: { code: 'USAGE_INVALID_ARGUMENT' } });
    });
  }

  it('exits 2 for params failing the schema; a missing directive without --plan is not found before any thread starts', async () => {
    const p = await project('print(1)', 'CONFIG_SCHEMA = {"type": "object", "required": ["n"]}');
    const res = await exec(p, '--json');
    expect(res.code).toBe(2);
    expect(res.json()).toMatchObject({ error: { code: 'PARAMS_INVALID' } });
    const dir = await rye(['execute', 'directive', 'x', '--project', p.project, '--json'], {
      env: p.env,
    });
    expect(dir.code).toBe(1);
    expect(dir.json()).toMatchObject({ error: { code: 'ITEM_NOT_FOUND' } });
    expect(existsSync(join(p.project, '.ai', 'threads'))).toBe(false);
  });

  // Both ways: the kill is rye's own; sandboxed, the pid the tool sees is its
  // PID namespace's, so the tool's processes are found by their command line.
  it.each(['on', 'off'] as const)(
    'kills the running tool’s process group when rye is terminated (sandbox %s)',
    async (sandbox) => {
      const p = await project(
        'import os, time\nopen(json.loads(sys.argv[2])["pid"], "w").write(str(os.getpid()))\ntime.sleep(60)',
        WRITES_MARKERS,
        sandbox,
      );
      const pidFile = join(p.project, 'markers', 'pid');
      // A temp folder of its own: the run's verified manifest must not outlive rye.
      const tmp = join(p.root, 'tmp');
      mkdirSync(tmp);
      const child = spawn(
        process.execPath,
        [
          RYE_BIN,
          'execute',
          'tool',
          't/echo',
          '--project',
          p.project,
          '--params',
          JSON.stringify({ pid: pidFile }),
        ],
        {
          env: { ...p.env, TMPDIR: tmp },
          stdio: 'ignore',
        },
      );
      await expect
        .poll(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', {
          timeout: 10_000,
        })
        .toBe(true);
      expect(readdirSync(tmp).filter((f) => f.startsWith('rye-run-'))).toHaveLength(1);
      const toolPid = Number(readFileSync(pidFile, 'utf8'));
      // Every process whose command line names the pid file, rye's own aside: the tool's.
      const tree = (): number[] => running(pidFile).filter((pid) => pid !== child.pid);
      expect(tree()).not.toEqual([]);
      const exited = new Promise<number | null>((resolve) =>
        child.on('exit', (code) => resolve(code)),
      );
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      if (sandbox === 'off') await expect.poll(() => alive(toolPid), { timeout: 5000 }).toBe(false);
      await expect.poll(() => running(pidFile), { timeout: 5000 }).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
    },
  );
});

/** Host pids of live processes whose command line contains `needle`. */
function running(needle: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^[0-9]+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(needle);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

describe('rye cache clear', () => {
  it('removes the verified snapshots, and the next run rebuilds its own', async () => {
    const p = await project('print(json.dumps({"ok": True}))');
    expect((await exec(p, '--json')).code).toBe(0);
    const snapshots = join(p.user, '.ai', 'cache', 'snapshots');
    expect(readdirSync(snapshots).length).toBe(1);
    const cleared = await rye(['cache', 'clear', '--project', p.project, '--json'], { env: p.env });
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.json()).toMatchObject({ ok: true, removed: 1 });
    expect(readdirSync(snapshots)).toEqual([]);
    expect((await exec(p, '--json')).code).toBe(0);
    expect(readdirSync(snapshots).length).toBe(1);
  });
});

describe('third-party code through the CLI', () => {
  it('refuses unpinned node_modules (exit 3), and runs once rye lock update pinned it with a notice', async () => {
    const p = await makeExecProject();
    const id = writeTsTool(p);
    await p.sign('tool', 'apps/ts-demo/**');
    const marker = join(p.project, 'markers', 'ts-marker'); // the tool may write markers/
    const params = JSON.stringify({ marker, word: 'hi' });
    const args = ['execute', 'tool', id, '--project', p.project, '--params', params, '--json'];
    const refused = await rye(args, { env: p.env });
    expect(refused.code).toBe(3);
    expect(refused.json()).toMatchObject({ error: { code: 'EXECUTOR_THIRD_PARTY_UNPINNED' } });
    expect(existsSync(marker)).toBe(false);
    const pinned = await rye(['lock', 'update', id, '--project', p.project], { env: p.env });
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(pinned.stdout).toContain('Pinned 2 third-party files (node_modules) by hash');
    const ran = await rye(args, { env: p.env });
    expect(ran.code, ran.stdout).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('ran');
  });
});
