import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operatorAuthority } from '../../../src/threads/capabilities/index.js';
import { runOperation } from '../../../src/threads/ops/index.js';
import { makeExampleProject } from '../../support/task-manager/example-project.js';

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
        '  <sandbox write="{input:name}/** .ai/plans/**" network="false"/>\n    </permissions>',
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
      { spaces: p.spaces, env: p.env, authority: operatorAuthority() },
    );
    expect(answer.status, JSON.stringify(answer)).toBe('success');
    const plan = (answer as { data: Record<string, unknown> }).data;
    expect(plan['sandbox']).toEqual({ write: ['task-manager/**', '.ai/plans/**'], network: false });
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
      narrowed: ['network'],
    });
    // A rye/ tool reached only through a runtime grant is not the thread's to run.
    expect(byTool.has('rye/core/bundler/bundler')).toBe(false);
  });
});
