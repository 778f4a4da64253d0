import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/executor/index.js';
import { readSigner } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { operatorAuthority } from '../../src/capabilities/index.js';
import { executeTool, runOperation } from '../../src/ops/index.js';
import { makeExecProject } from '../helpers/exec-project.js';
import { TASK_MANAGER_ID, writeTaskManager } from '../helpers/task-manager.js';

/*
 * The bundler signs a manifest with the user's key, which no tool process
 * holds (CONTAINMENT.md §1.8): through the operations it runs in rye's
 * process once verified; run as a plain subprocess it is sandboxed and finds
 * no key.
 */
describe('in-process system tools', () => {
  const create = {
    action: 'create',
    bundle_id: TASK_MANAGER_ID,
    version: '1.0.0',
    include: ['task-manager'],
  };
  const manifest = (project: string): string =>
    join(project, '.ai', 'bundles', TASK_MANAGER_ID, 'manifest.yaml');

  it('the bundler creates a signed bundle in process (no sandbox, no tool process)', async () => {
    const p = await makeExecProject();
    writeTaskManager(p, await readSigner(keyDir(p.spaces)));
    const result = await executeTool(
      { spaces: p.spaces, env: p.env, authority: operatorAuthority() },
      'rye/core/bundler/bundler',
      { parameters: create, dryRun: false, nested: runOperation },
    );
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(result.metadata.sandbox).toBe('none');
    expect(result.data).toMatchObject({ success: true });
    expect(existsSync(manifest(p.project))).toBe(true);
  });

  it('the same tool run as a subprocess is sandboxed and finds no key to sign with; nothing is written', async () => {
    const p = await makeExecProject();
    writeTaskManager(p, await readSigner(keyDir(p.spaces)));
    const result = await execute({
      spaces: p.spaces,
      toolId: 'rye/core/bundler/bundler',
      params: create,
      env: p.env,
    });
    expect(result.metadata.sandbox).toBe('bwrap');
    expect(result.status).toBe('error');
    expect(JSON.stringify(result.data)).toContain('KEY_NOT_FOUND');
    expect(existsSync(manifest(p.project))).toBe(false);
  });
});
