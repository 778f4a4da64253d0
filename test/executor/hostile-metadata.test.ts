import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/executor/index.js';
import { readSigner, signText } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { BUILT_SYSTEM, makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { refusal } from '../helpers/refusal.js';

const SHELL_RUNTIME = join(BUILT_SYSTEM, '.ai/tools/rye/core/runtimes/shell_runtime.yaml');

/**
 * A project whose tool `t/run` writes a marker (in the project's markers/, which
 * it may write) through the project runtime
 * `t/runtime` (the standard shell runtime, plus `padding`), both signed with the
 * user's trusted key: the signature is no shield against a costly parse.
 */
async function project(padding: string): Promise<{ p: ExecProject; marker: string }> {
  const p = await makeExecProject();
  const signer = await readSigner(keyDir(p.spaces));
  const marker = join(p.project, 'markers', 'marker');
  const runtime = readFileSync(SHELL_RUNTIME, 'utf8')
    .split('\n')
    .slice(1) // the build's signature line
    .join('\n')
    .replace('category: rye/core/runtimes', 'category: t');
  const tool = [
    '# __version__ = "1.0.0"',
    '# __tool_type__ = "shell"',
    '# __executor_id__ = "t/runtime"',
    '# __category__ = "t"',
    '# __tool_description__ = "writes a marker"',
    '# __permissions__ = {"write": ["markers"]}',
    `echo ran > '${marker}'`,
    "echo '{}'",
    '',
  ].join('\n');
  const sign = (text: string, extension: string): string =>
    signText(text, { itemType: 'tool', extension, signer }).text;
  p.write('.ai/tools/t/runtime.yaml', sign(`${runtime}\n${padding}`, '.yaml'));
  p.write('.ai/tools/t/run.sh', sign(tool, '.sh'));
  return { p, marker };
}

describe('execute() on a chain element with hostile 1 MB metadata', () => {
  it('runs the tool through the plain runtime (the marker proves the attack path is live)', async () => {
    const { p, marker } = await project('');
    const result = await execute({ spaces: p.spaces, toolId: 't/run', env: p.env });
    expect(result.status, JSON.stringify(result.error)).toBe('success');
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');
  });

  it('refuses a signed runtime padded with 1 MB of distinct keys, running nothing', async () => {
    const keys = Array.from({ length: 110_000 }, (_, i) => `pad_${i}: ${i}`).join('\n');
    const { p, marker } = await project(`${keys}\n`);
    const refused = await refusal(execute({ spaces: p.spaces, toolId: 't/run', env: p.env }));
    expect(refused.code).toBe('PARSE_UNSAFE_CONTENT');
    expect(refused.message).toContain('runtime.yaml');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a signed runtime nested 500,000 deep, running nothing', async () => {
    const half = 512 * 1024;
    const { p, marker } = await project(`pad: ${'['.repeat(half)}${']'.repeat(half)}\n`);
    const refused = await refusal(execute({ spaces: p.spaces, toolId: 't/run', env: p.env }));
    expect(refused.code).toBe('PARSE_UNSAFE_CONTENT');
    expect(existsSync(marker)).toBe(false);
  });
});
