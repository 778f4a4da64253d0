/**
 * bin/rye.js ends the process of a command on the fast path as soon as the
 * command is done and its output is out (src/cli/entry.ts, `exit`), rather
 * than letting Node tear its heap down. These tests hold the two halves of
 * that: the process does end there, and no output is lost on the way out,
 * even when stdout's stream holds some back (a pipe read late).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RYE_BIN } from '../helpers/cli.js';
import { makeExecProject } from '../helpers/exec-project.js';

/** How many tools `rye verify tool 't/*'` reports on: well over what a pipe holds (64 KiB). */
const TOOLS = 400;

async function projectWithTools(count: number) {
  const p = await makeExecProject();
  for (let i = 0; i < count; i += 1)
    p.write(`.ai/tools/t/tool_${i}.py`, `__version__ = "1.0.${i}"\nprint("{}")\n`);
  await p.sign('tool', 't/*');
  return p;
}

/** `rye verify tool 't/*' --json` in `p`, with `preload` (JavaScript) run first in its process. */
function verifyWithPreload(
  p: { root: string; project: string; env: NodeJS.ProcessEnv },
  preload: string,
): ReturnType<typeof spawn> {
  const file = join(p.root, 'preload.cjs');
  writeFileSync(file, preload);
  return spawn(
    process.execPath,
    ['-r', file, RYE_BIN, 'verify', 'tool', 't/*', '--project', p.project, '--json'],
    { env: p.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

function exited(child: ReturnType<typeof spawn>): Promise<number | null> {
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}

describe('a fast-path command ends its process when it is done', () => {
  it('even with something else keeping the event loop alive, and with its whole output', async () => {
    const p = await projectWithTools(1);
    // A handle the command knows nothing of: a natural end would wait for it forever.
    const child = verifyWithPreload(p, 'setInterval(() => {}, 60_000);\n');
    let stdout = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    expect(await exited(child)).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true });
  });

  it('waits for the output its stdout stream still holds, read late', async () => {
    const p = await projectWithTools(TOOLS);
    // Once Node has built process.stdout for a pipe (here before rye starts;
    // in rye, after a write that would block), the pipe is non-blocking and
    // what the reader has not taken yet waits in the stream, not the kernel.
    const child = verifyWithPreload(p, 'void process.stdout;\n');
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = exited(child);
    const closed = new Promise((resolve) => child.on('close', resolve));
    // Read late: rye has written all it will long before.
    child.stdout?.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdout?.resume();
    await closed;
    expect(await code, stderr).toBe(0);
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text.length).toBeGreaterThan(128 * 1024);
    const document = JSON.parse(text) as { ok: boolean; results: unknown[] };
    expect(document.ok).toBe(true);
    expect(document.results).toHaveLength(TOOLS);
  });
});
