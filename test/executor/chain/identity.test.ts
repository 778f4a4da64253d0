import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute } from '../../../src/executor/index.js';
import { checkIdentity } from '../../../src/executor/chain/identity.js';
import { readSigner, signText } from '../../../src/integrity/index.js';
import { extractMetadata, keyDir, type ResolvedItem } from '../../../src/items/index.js';
import { makeExecProject, type ExecProject } from '../../helpers/exec-project.js';
import { refusal } from '../../helpers/refusal.js';

/** A tool that leaves a marker file when it runs (in the project's markers/, which it may write). */
const markerTool = (category: string, executor = 'rye/core/runtimes/python_script_runtime') =>
  `import json, sys
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "${executor}"
__category__ = "${category}"
__tool_description__ = "writes a marker"
__permissions__ = {"write": ["markers"]}
CONFIG_SCHEMA = {"type": "object", "properties": {"marker": {"type": "string"}}}
open(json.loads(sys.argv[2])["marker"], "w").write("ran")
print("{}")
`;

const run = (p: ExecProject, toolId: string, marker: string) =>
  execute({ spaces: p.spaces, toolId, params: { marker }, env: p.env });

describe('chain element identity (class 11)', () => {
  it('refuses a signed tool copied over another id in the same project, and nothing runs', async () => {
    const p = await makeExecProject();
    const original = p.write('.ai/tools/apps/safe/tool.py', markerTool('apps/safe'));
    await p.sign('tool', 'apps/safe/tool');
    const marker = join(p.project, 'markers', 'marker');
    expect((await run(p, 'apps/safe/tool', marker)).status).toBe('success');
    expect(existsSync(marker)).toBe(true);

    // The same validly signed bytes under another folder: the signature still verifies.
    const copy = p.write('.ai/tools/apps/admin/tool.py', readFileSync(original));
    const other = join(p.project, 'markers', 'other-marker');
    const refused = await refusal(run(p, 'apps/admin/tool', other));
    expect(refused.code).toBe('EXECUTOR_IDENTITY_MISMATCH');
    expect(refused.message).toContain('apps/admin/tool');
    expect(refused.message).toContain(copy);
    expect(refused.message).toContain('category "apps/safe"');
    expect(refused.details).toMatchObject({
      itemId: 'apps/admin/tool',
      path: copy,
      space: 'project',
      signed: { category: 'apps/safe' },
      expected: { category: 'apps/admin' },
    });
    expect(existsSync(other)).toBe(false);
  });

  it('refuses a signed runtime copied over another runtime’s id', async () => {
    const p = await makeExecProject();
    const runtimes = join(p.system, '.ai/tools/rye/core/runtimes');
    // A project "runtime" in another folder carrying the system runtime's signed bytes.
    const copy = p.write(
      '.ai/tools/apps/rt/python_script_runtime.yaml',
      readFileSync(join(runtimes, 'python_script_runtime.yaml')),
    );
    p.write('.ai/tools/apps/t/tool.py', markerTool('apps/t', 'apps/rt/python_script_runtime'));
    await p.sign('tool', 'apps/t/tool');
    const marker = join(p.project, 'markers', 'marker');
    const refused = await refusal(run(p, 'apps/t/tool', marker));
    expect(refused.code).toBe('EXECUTOR_IDENTITY_MISMATCH');
    expect(refused.details).toMatchObject({
      itemId: 'apps/rt/python_script_runtime',
      path: copy,
      signed: { category: 'rye/core/runtimes' },
    });
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a signed tool that declares no category', async () => {
    const p = await makeExecProject();
    const signer = await readSigner(keyDir(p.spaces));
    // Signed directly, past `rye sign`'s validation (as another implementation might).
    const text = markerTool('x').replace('__category__ = "x"\n', '');
    p.write(
      '.ai/tools/apps/bare/tool.py',
      signText(text, { itemType: 'tool', extension: '.py', signer }).text,
    );
    const marker = join(p.project, 'markers', 'marker');
    const refused = await refusal(run(p, 'apps/bare/tool', marker));
    expect(refused.code).toBe('EXECUTOR_IDENTITY_MISMATCH');
    expect(refused.message).toContain('category (none)');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('checkIdentity()', () => {
  const item = (itemId: string): ResolvedItem => ({
    itemType: 'tool',
    itemId,
    space: 'project',
    path: `/p/.ai/tools/${itemId}.yaml`,
    extension: '.yaml',
  });
  const yaml = (category: string) =>
    extractMetadata(
      'tool',
      '.yaml',
      `tool_type: runtime\nexecutor_id: null\ncategory: ${category}\n`,
      'x.yaml',
    );

  it('accepts the category of the folder the id names, including "" at the top level', async () => {
    const nested = await yaml('a/b');
    const top = await yaml('""');
    expect(() => checkIdentity(item('a/b/c'), nested)).not.toThrow();
    expect(() => checkIdentity(item('top'), top)).not.toThrow();
  });

  it('refuses a parent, child or sibling folder', async () => {
    for (const category of ['a', 'a/b/c', 'a/x', '""']) {
      const metadata = await yaml(category);
      expect(() => checkIdentity(item('a/b/c'), metadata), category).toThrow(
        expect.objectContaining({ code: 'EXECUTOR_IDENTITY_MISMATCH' }),
      );
    }
  });
});
