import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';

/**
 * A tool that writes a marker file when it runs (in the project's markers/,
 * which it may write), and a knowledge entry beside it.
 */
async function project(): Promise<{ p: ExecProject; marker: string }> {
  const p = await makeExecProject();
  const marker = join(p.project, 'markers', 'ran.marker');
  p.write(
    '.ai/tools/t/mark.py',
    `import json, sys
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "writes a marker file"
__permissions__ = {"write": ["markers"]}
open(${JSON.stringify(marker)}, "w").write("ran")
print(json.dumps({"ok": True}))
`,
  );
  await p.sign('tool', 't/mark');
  p.write(
    '.ai/knowledge/t/mark-notes.md',
    '```yaml\nname: mark-notes\ntitle: Marker notes\nversion: "1.0.0"\nentry_type: note\ncategory: t\ntags: [mark]\n```\n\nHow the marker tool marks.\n',
  );
  await p.sign('knowledge', 't/mark-notes');
  return { p, marker };
}

const run = (p: ExecProject, ...args: string[]) =>
  rye([...args, '--project', p.project, '--json'], { env: p.env });

describe('--caps narrows a command to a capability set', () => {
  it('execute outside the set is CAPABILITY_DENIED (exit 3), naming what it needs, and nothing runs', async () => {
    const { p, marker } = await project();
    const res = await run(p, 'execute', 'tool', 't/mark', '--caps', 'rye.execute.tool.other/*');
    expect(res.code).toBe(3);
    expect(res.json()).toMatchObject({
      error: {
        code: 'CAPABILITY_DENIED',
        details: { required: 'rye.execute.tool.t/mark', held: ['rye.execute.tool.other/*'] },
      },
    });
    expect(existsSync(marker)).toBe(false);
  });

  it('a reserved id outside the set is CAPABILITY_DENIED whether or not it exists', async () => {
    const { p } = await project();
    for (const id of ['rye/bash/bash', 'rye/core/git']) {
      const res = await run(p, 'execute', 'tool', id, '--caps', 'rye.execute.tool.t/*');
      expect(res.code, id).toBe(3);
      expect(res.json()).toMatchObject({
        error: { code: 'CAPABILITY_DENIED', details: { required: `rye.execute.tool.${id}` } },
      });
    }
  });

  it('the chain rule: a grant on the runtime the verified chain passes through runs the tool', async () => {
    const { p, marker } = await project();
    const res = await run(
      p,
      'execute',
      'tool',
      't/mark',
      '--caps',
      'rye.execute.tool.rye/core/runtimes/python_script_runtime',
    );
    expect(res.code, res.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('search filters out what the set may not search; load refuses it; a --caps file works the same', async () => {
    const { p } = await project();
    const all = await run(p, 'search', 'mark');
    const ids = (doc: { results: { item_id: string }[] }) => doc.results.map((r) => r.item_id);
    expect(ids(all.json())).toEqual(expect.arrayContaining(['t/mark', 't/mark-notes']));
    const file = join(p.root, 'caps.txt');
    writeFileSync(file, '# knowledge only\nrye.search.knowledge.*\n');
    for (const caps of ['rye.search.knowledge.*', `@${file}`]) {
      const narrow = await run(p, 'search', 'mark', '--caps', caps);
      expect(narrow.code).toBe(0);
      expect(ids(narrow.json())).toEqual(['t/mark-notes']);
    }
    const load = await run(p, 'load', 'tool', 't/mark', '--caps', 'rye.load.knowledge.*');
    expect(load.code).toBe(3);
    expect(load.json()).toMatchObject({ error: { code: 'CAPABILITY_DENIED' } });
  });

  it('sign refuses a pattern reaching one item outside the set and writes nothing', async () => {
    const { p } = await project();
    const path = join(p.project, '.ai/tools/t/mark.py');
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replace('writes a marker file', 'writes a marker'),
    );
    const edited = readFileSync(path, 'utf8');
    const res = await run(p, 'sign', 'tool', 't/*', '--caps', 'rye.sign.tool.other/*');
    expect(res.code).toBe(3);
    expect(res.json()).toMatchObject({ error: { code: 'CAPABILITY_DENIED' } });
    expect(readFileSync(path, 'utf8')).toBe(edited);
  });

  it('a malformed --caps is CAPABILITY_INVALID (exit 2) before anything is read', async () => {
    const { p, marker } = await project();
    const res = await run(p, 'execute', 'tool', 't/mark', '--caps', 'rye.execute.tool.a*b');
    expect(res.code).toBe(2);
    expect(res.json()).toMatchObject({ error: { code: 'CAPABILITY_INVALID' } });
    expect(existsSync(marker)).toBe(false);
  });
});
