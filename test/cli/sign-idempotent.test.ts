import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';

const TOOL = `import json
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "idempotent signing"
print(json.dumps({"ok": True}))
`;

const cli = (p: ExecProject, ...args: string[]) =>
  rye([...args, '--project', p.project], { env: p.env });

interface SignDoc {
  signed: { item_id: string; unchanged: boolean }[];
  stale_lockfiles: unknown[];
}

describe('rye sign on an unchanged item', () => {
  it('keeps the signature line byte for byte, so the lockfile stays valid', async () => {
    const p = await makeExecProject();
    const path = p.write('.ai/tools/t/same.py', TOOL);
    expect((await cli(p, 'sign', 'tool', 't/same')).code).toBe(0);
    const signed = readFileSync(path);
    const mtime = statSync(path).mtimeMs;
    const lock = await cli(p, 'lock', 'update', 't/same');
    expect(lock.code, lock.stderr).toBe(0);

    // Signatures carry seconds: a later second would change a rewritten line.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await cli(p, 'sign', 'tool', 't/same', '--json');
    expect(again.code, again.stdout).toBe(0);
    const doc = again.json<SignDoc>();
    expect(doc.signed).toEqual([expect.objectContaining({ item_id: 't/same', unchanged: true })]);
    expect(doc.stale_lockfiles).toEqual([]);
    expect(readFileSync(path).equals(signed)).toBe(true);
    expect(statSync(path).mtimeMs).toBe(mtime);
    const verify = await cli(p, 'lock', 'verify', 't/same', '--json');
    expect(verify.code, verify.stdout).toBe(0);

    const human = await cli(p, 'sign', 'tool', 't/same');
    expect(human.stdout).toContain('unchanged  t/same.py');
  });

  it('still re-signs an edited item and reports the lockfile it made stale', async () => {
    const p = await makeExecProject();
    const path = p.write('.ai/tools/t/edit.py', TOOL);
    await cli(p, 'sign', 'tool', 't/edit');
    await cli(p, 'lock', 'update', 't/edit');
    appendFileSync(path, '# edited\n');
    const again = await cli(p, 'sign', 'tool', 't/edit', '--json');
    const doc = again.json<SignDoc>();
    expect(doc.signed).toEqual([expect.objectContaining({ item_id: 't/edit', unchanged: false })]);
    expect(doc.stale_lockfiles).toEqual([
      expect.objectContaining({ path: join(p.project, '.ai/lockfiles/t/edit@1.0.0.lock.json') }),
    ]);
  });
});
