import { appendFileSync, chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';

const TOOL = `import json, os, sys
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "reports its environment, and marks that it ran"
ENV_CONFIG = {"dotenv": ["GREETING"]}
open(json.loads(sys.argv[2])["m"], "w").write("ran")
print(json.dumps({"greeting": os.environ.get("GREETING"), "other": os.environ.get("OTHER")}))
`;

async function project(): Promise<ExecProject & { marker: string }> {
  const p = await makeExecProject();
  p.write('.ai/tools/t/env.py', TOOL);
  await p.sign('tool', 't/env');
  return { ...p, marker: join(p.root, 'marker') };
}

const exec = (p: ExecProject & { marker: string }, ...args: string[]) =>
  rye(
    [
      'execute',
      'tool',
      't/env',
      '--project',
      p.project,
      '--params',
      JSON.stringify({ m: p.marker }),
      ...args,
    ],
    { env: p.env },
  );

const dotenv = (p: ExecProject, ...args: string[]) =>
  rye(['dotenv', ...args, '--project', p.project], { env: p.env });

describe('rye dotenv sign / verify and rye execute', () => {
  it('ignores an unsigned .env, and applies the declared names once it is signed', async () => {
    const p = await project();
    const path = p.write('.env', 'GREETING=hello\nOTHER=x\n');
    let res = await exec(p, '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(res.json()).toMatchObject({
      data: { greeting: null, other: null },
      metadata: { dotenv: 'ignored: unsigned' },
    });
    const unsigned = await dotenv(p, 'verify', '--json');
    expect(unsigned.code).toBe(3);
    expect(unsigned.json()).toMatchObject({ error: { code: 'INTEGRITY_UNSIGNED' } });

    const signed = await dotenv(p, 'sign', '--json');
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.json()).toMatchObject({ ok: true, path, names: ['GREETING', 'OTHER'] });
    expect(signed.stdout).not.toContain('hello');
    expect(readFileSync(path, 'utf8')).toMatch(/^# rye:signed:\S+\nGREETING=hello\nOTHER=x\n$/);
    expect((await dotenv(p, 'verify', '--json')).json()).toMatchObject({
      ok: true,
      names: ['GREETING', 'OTHER'],
    });

    res = await exec(p, '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(res.json()).toMatchObject({
      data: { greeting: 'hello', other: null },
      metadata: { dotenv: 'applied: GREETING' },
    });
    const dry = await exec(p, '--dry-run');
    expect(dry.stdout).toContain('  .env: applied: GREETING');
  });

  it('keeps the file mode when signing', async () => {
    const p = await project();
    const path = p.write('.env', 'GREETING=hello\n');
    chmodSync(path, 0o600);
    expect((await dotenv(p, 'sign')).code).toBe(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('refuses to sign a .env that sets a loader name, and leaves it as it was', async () => {
    const p = await project();
    const text = 'GREETING=hi\nNODE_OPTIONS=--require ./evil.cjs\nPYTHONPATH=.\n';
    const path = p.write('.env', text);
    const res = await dotenv(p, 'sign', '--json');
    expect(res.code).toBe(3);
    expect(res.json()).toMatchObject({
      error: {
        code: 'EXECUTOR_DOTENV_REFUSED',
        details: { names: ['NODE_OPTIONS', 'PYTHONPATH'] },
      },
    });
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('refuses to run anything when the signed .env was edited, naming .env', async () => {
    const p = await project();
    const path = p.write('.env', 'GREETING=hello\n');
    expect((await dotenv(p, 'sign')).code).toBe(0);
    appendFileSync(path, 'GREETING=changed\n');
    const res = await exec(p, '--json');
    expect(res.code).toBe(3);
    expect(res.json()).toMatchObject({
      status: 'error',
      error: { code: 'INTEGRITY_HASH_MISMATCH', details: { path } },
    });
    expect((res.json()['error'] as { message: string }).message).toContain(`Cannot use ${path}`);
    expect(existsSync(p.marker)).toBe(false);
    expect((await dotenv(p, 'verify')).code).toBe(3);
    expect((await exec(p)).stderr).toContain('error[INTEGRITY_HASH_MISMATCH]');
  });

  it('says when there is no .env to sign', async () => {
    const p = await project();
    const res = await dotenv(p, 'sign', '--json');
    expect(res.code).toBe(1);
    expect(res.json()).toMatchObject({ error: { code: 'FILE_UNREADABLE' } });
  });
});
