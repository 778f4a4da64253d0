import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compileCaps,
  operatorAuthority,
  parseCapability,
} from '../../../src/capabilities/index.js';
import { runOperation } from '../../../src/ops/index.js';
import { plannedToolSandboxes } from '../../../src/threads/admission/tool-sandboxes.js';
import { makeExecProject } from '../../helpers/exec-project.js';
import { makeExampleProject } from '../../support/task-manager/example-project.js';
import { THREADS_PORT } from '../../../src/threads/root/index.js';

/*
 * --plan and the dry run of a directive list the effective sandbox of every
 * tool its grants reach (CONTAINMENT.md §1.4), narrowed by its <sandbox>.
 */
describe('a directive’s dry run shows the sandbox of every tool it may run', () => {
  it('lists granted tools and tools through a granted runtime, each narrowed by <sandbox>', async () => {
    const p = await makeExampleProject();
    const file = join(p.project, '.ai/directives/apps/task-manager/implement_feature.md');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        '</permissions>',
        '  <sandbox write="{input:name}/** .ai/plans/**" network="false" daemon="false"/>\n    </permissions>',
      ),
    );
    await p.sign('directive', 'apps/task-manager/implement_feature');
    const answer = await runOperation(
      'execute',
      {
        item_type: 'directive',
        item_id: 'apps/task-manager/implement_feature',
        inputs: { plan_path: '.ai/plans/x.md', name: 'task-manager' },
        dry_run: true,
      },
      { spaces: p.spaces, env: p.env, authority: operatorAuthority(), threads: THREADS_PORT },
    );
    expect(answer.status, JSON.stringify(answer)).toBe('success');
    const plan = (answer as { data: Record<string, unknown> }).data;
    expect(plan['sandbox']).toEqual({
      write: ['task-manager/**', '.ai/plans/**'],
      network: false,
      daemon: false,
    });
    const boxes = plan['tool_sandboxes'] as { mode: string; tools: Record<string, unknown>[] };
    expect(boxes.mode).toBe('bwrap');
    const byTool = new Map(boxes.tools.map((t) => [t['tool'], t]));
    // Granted directly: the file-system tools; through node_runtime: the app's own tools.
    expect(byTool.get('rye/file-system/fs_write')).toMatchObject({
      read: ['.', '.ai/plans/**'],
      write: ['task-manager/**', '.ai/plans/**'],
      network: false,
    });
    expect(byTool.get('apps/task-manager/dev_server')).toMatchObject({
      write: ['task-manager/**', '.ai/plans/**'],
      network: false,
      daemon: false,
      narrowed: ['network', 'daemon'],
    });
    // A rye/ tool reached only through a runtime grant is not the thread's to run.
    expect(byTool.has('rye/core/bundler/bundler')).toBe(false);
  });
});

describe('plannedToolSandboxes() and the chain rule', () => {
  it('lists a tool whose granted runtime is two links down its chain, and no runtime itself', async () => {
    const p = await makeExecProject();
    p.write(
      '.ai/tools/apps/x/wrap_runtime.yaml',
      [
        'version: "1.0.0"',
        'tool_type: runtime',
        'executor_id: rye/core/runtimes/node_runtime',
        'category: apps/x',
        'description: "wraps node_runtime"',
        '',
      ].join('\n'),
    );
    p.write(
      '.ai/tools/apps/x/leaf.mjs',
      [
        "export const __version__ = '1.0.0';",
        "export const __tool_type__ = 'javascript';",
        "export const __executor_id__ = 'apps/x/wrap_runtime';",
        "export const __category__ = 'apps/x';",
        "export const __tool_description__ = 'two links from node_runtime';",
        "export const __permissions__ = { write: ['out/**'], network: true };",
        '',
      ].join('\n'),
    );
    await p.sign('tool', 'apps/x/*');
    const caps = compileCaps([parseCapability('rye.execute.tool.rye/core/runtimes/node_runtime')]);
    const files = ['apps/x/leaf', 'apps/x/wrap_runtime'].map((itemId) => ({
      itemType: 'tool' as const,
      itemId,
    }));
    const { tools } = await plannedToolSandboxes(p.spaces, caps, { network: false }, files, 'off');
    expect(tools).toEqual([
      expect.objectContaining({
        tool: 'apps/x/leaf',
        write: ['out/**'],
        network: false,
        narrowed: ['network'],
      }),
    ]);
    // Granted nothing on the chain: not listed.
    const none = compileCaps([
      parseCapability('rye.execute.tool.rye/core/runtimes/python_runtime'),
    ]);
    expect((await plannedToolSandboxes(p.spaces, none, null, files, 'off')).tools).toEqual([]);
  });
});
