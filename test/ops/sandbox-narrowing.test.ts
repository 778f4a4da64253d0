import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { narrowAuthority, operatorAuthority, authorityOf } from '../../src/capabilities/index.js';
import { executeTool, runOperation, type OperationContext } from '../../src/ops/index.js';
import { makeExecProject } from '../helpers/exec-project.js';

/*
 * A thread's <sandbox> narrows the tools it runs (CONTAINMENT.md §1.4): the
 * bound travels with the authority, so a tool declaring `write: ["."]` run
 * under `write: out/**` writes only there, and a tool run through the
 * channel (a narrowed authority) keeps the bound.
 */
const TOOL = `export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node_runtime";
export const __category__ = "w";
export const __tool_description__ = "writes two files";
export const __permissions__ = { write: ["."] };
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectPath, respond } from '@rye/runtime';
const tried = {};
for (const rel of ['wide/x.txt', 'out/x.txt']) {
  try {
    mkdirSync(join(projectPath(), rel, '..'), { recursive: true });
    writeFileSync(join(projectPath(), rel), 'x');
    tried[rel] = 'written';
  } catch (error) {
    tried[rel] = error.code;
  }
}
respond({ tried });
`;

describe('a thread’s sandbox bound reaches its tools', () => {
  it('narrows a tool declaring write ["."] to the granted folder, and the plan shows it', async () => {
    const p = await makeExecProject();
    p.write('.ai/tools/w/writer.mjs', TOOL);
    await p.sign('tool', 'w/**');
    const base = operatorAuthority();
    const bounded = authorityOf(base.caps, 'thread', { write: ['out/**'], network: false });
    const ctx: OperationContext = { spaces: p.spaces, env: p.env, authority: bounded };

    const planned = await executeTool(ctx, 'w/writer', {
      parameters: {},
      dryRun: true,
      nested: runOperation,
    });
    expect(planned.plan?.sandbox).toMatchObject({ write: ['out/**'], network: false });

    const result = await executeTool(ctx, 'w/writer', {
      parameters: {},
      dryRun: false,
      nested: runOperation,
    });
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect((result.data as { tried: Record<string, string> }).tried['out/x.txt']).toBe('written');
    expect((result.data as { tried: Record<string, string> }).tried['wide/x.txt']).not.toBe(
      'written',
    );
    expect(existsSync(join(p.project, 'wide', 'x.txt'))).toBe(false);
    expect(existsSync(join(p.project, 'out', 'x.txt'))).toBe(true);

    // A narrowed authority (a channel's) keeps the bound.
    const channelCtx = { ...ctx, authority: narrowAuthority(bounded, base.caps) };
    const again = await executeTool(channelCtx, 'w/writer', {
      parameters: {},
      dryRun: true,
      nested: runOperation,
    });
    expect(again.plan?.sandbox?.write).toEqual(['out/**']);
  });
});
