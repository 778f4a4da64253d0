/**
 * `rye execute` of a tool loads the executor and what it uses, not the rest of
 * the operations (scripts/cli-bundle-doors.mjs: imports through a door go to
 * the defining module), and no bundle code or YAML parser unless a bundle
 * whose tool folder holds the tool has a manifest (src/bundle/bundles-dir.ts).
 */
import { describe, expect, it } from 'vitest';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { loadedText, ryeLoading } from '../helpers/loaded-files.js';

async function pythonTool(): Promise<ExecProject> {
  const p = await makeExecProject();
  p.write(
    '.ai/tools/t/noop.py',
    `__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "prints an empty object"
print("{}")
`,
  );
  await p.sign('tool', 't/noop');
  return p;
}

const execute = (p: ExecProject) =>
  ryeLoading(['execute', 'tool', 't/noop', '--project', p.project, '--json'], { env: p.env });

/** The loaded files that hold code from `source` (the bundle marks each with a `// path` line). */
const holding = (files: readonly string[], source: string): string[] =>
  files.filter((f) => loadedText(f).includes(`\n// ${source}`));

describe('rye execute loads what a tool run uses', () => {
  it('without a bundle: no manifest code, no YAML, no zod, no search catalog', async () => {
    const p = await pythonTool();
    const res = await execute(p);
    expect(res.code, res.stdout).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ ok: true, status: 'success', data: {} });
    expect(holding(res.files, 'src/executor/execute.ts')).toHaveLength(1);
    // All of it from the code bodies through the CommonJS entry: no ES module loaded.
    expect(res.modules).toEqual([]);
    // Once the lockfile is written, no Node module the run has no use for
    // (fs/promises and timers/promises load on a first call).
    const again = await execute(p);
    expect(JSON.parse(again.stdout)).toMatchObject({ metadata: { lockfile_used: true } });
    expect(again.builtins).toContain('child_process');
    for (const builtin of ['fs/promises', 'timers/promises', 'perf_hooks'])
      expect(again.builtins, builtin).not.toContain(builtin);
    for (const source of [
      'src/bundle/bundle-of.ts',
      'src/bundle/manifest-parse.ts',
      'node_modules/yaml/',
      'node_modules/zod/',
      'src/catalog/',
      'src/ops/schemas.ts',
    ])
      expect(holding(res.files, source), source).toEqual([]);
  });

  it('with a manifest of a bundle that could hold the tool, the manifests are looked up; with others only, not', async () => {
    const p = await pythonTool();
    // Neither is signed: a manifest that does not verify covers nothing, and the tool runs.
    p.write('.ai/bundles/apps/other/manifest.yaml', 'bundle: {}\n');
    const unrelated = await execute(p);
    expect(unrelated.code, unrelated.stdout).toBe(0);
    expect(holding(unrelated.files, 'src/bundle/bundle-of.ts')).toEqual([]);
    p.write('.ai/bundles/t/manifest.yaml', 'bundle: {}\n');
    const res = await execute(p);
    expect(res.code, res.stdout).toBe(0);
    expect(holding(res.files, 'src/bundle/bundle-of.ts')).toHaveLength(1);
  });
});
