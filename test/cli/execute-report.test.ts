import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/context.js';
import { reportError } from '../../src/cli/report.js';
import { RyeError } from '../../src/errors/index.js';
import { rye } from '../helpers/cli.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';

const TOOL = `import json, sys
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "params report"
CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "verbose": {"type": "boolean"},
        "mode": {"enum": ["fast", "safe"]},
        "level": {"const": 3},
    },
    "required": ["verbose"],
}
print(json.dumps({"ok": True}))
`;

async function project(): Promise<ExecProject> {
  const p = await makeExecProject();
  p.write('.ai/tools/t/params.py', TOOL);
  await p.sign('tool', 't/params');
  return p;
}

const exec = (p: ExecProject, params: unknown, ...args: string[]) =>
  rye(
    [
      'execute',
      'tool',
      't/params',
      '--project',
      p.project,
      '--params',
      JSON.stringify(params),
      ...args,
    ],
    { env: p.env },
  );

describe('human-mode PARAMS_INVALID', () => {
  it('names each field and lists the values an enum allows', async () => {
    const p = await project();
    const res = await exec(p, { mode: 'slow', level: 4 });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error[PARAMS_INVALID]');
    expect(res.stderr).toContain('  - verbose: is required\n');
    expect(res.stderr).toContain('  - mode: must be one of "fast", "safe"\n');
    expect(res.stderr).toContain('  - level: must be 3\n');
    expect(res.stderr).not.toMatch(/^ {2}- : /m);
  });

  it('names a field of the wrong type', async () => {
    const p = await project();
    const res = await exec(p, { verbose: 'yes' });
    expect(res.stderr).toContain('  - verbose: must be boolean\n');
  });

  it('keeps the JSON issues as pointers with the same messages', async () => {
    const p = await project();
    const res = await exec(p, { verbose: true, mode: 'slow' }, '--json');
    expect(res.json()).toMatchObject({
      error: {
        code: 'PARAMS_INVALID',
        details: { issues: [{ path: '/mode', message: 'must be one of "fast", "safe"' }] },
      },
    });
  });
});

describe('reportError() issue lines', () => {
  function human(details: Record<string, unknown>): string {
    let err = '';
    const io: CliIo = { stdout: () => undefined, stderr: (t) => (err += t), env: {}, cwd: '/' };
    reportError({ json: false, io }, new RyeError('LOCKFILE_INVALID', 'Cannot use x', details));
    return err;
  }

  it('prints item validation fields, params pointers (root as params) and bare strings', () => {
    const out = human({
      issues: [
        { field: 'version', message: 'is required' },
        { path: '/', message: 'params must be a JSON object' },
        { path: '/a~1b/0', message: 'must be string' },
        'chain[0].path is missing',
      ],
    });
    expect(out).toContain('  - version: is required\n');
    expect(out).toContain('  - params: params must be a JSON object\n');
    expect(out).toContain('  - a/b/0: must be string\n');
    expect(out).toContain('  - chain[0].path is missing\n');
  });
});

describe('rye execute --dry-run', () => {
  it('lists each verified file once (a multi-file tool walks its own folder too)', async () => {
    const p = await project();
    p.write('.ai/tools/t/__init__.py', '');
    await p.sign('tool', 't/*');
    const res = await exec(p, { verbose: true }, '--dry-run', '--json');
    expect(res.code, res.stdout).toBe(0);
    const files = res.json<{ plan: { files_verified: string[] } }>().plan.files_verified;
    expect(files.length).toBeGreaterThan(1);
    expect(new Set(files).size).toBe(files.length);
    expect(files.filter((f) => f.endsWith('t/params.py'))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith('t/__init__.py'))).toHaveLength(1);
  });
});
