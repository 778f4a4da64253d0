/**
 * Flags never do the dangerous thing (docs/commands.md, "Options that do not
 * apply"): every command refuses every option it does not take, and `rye
 * execute` refuses the options of the other item type, before anything runs.
 * `--dry-run` on a directive is its plan: no provider request, no thread.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Option } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXECUTE_FLAGS } from '../../src/cli/commands/execute-run.js';
import type { CliIo } from '../../src/cli/context.js';
import { COMMANDS, VERSION } from '../../src/cli/main.js';
import { commandLeaves } from '../helpers/command-leaves.js';
import { runProgram } from '../../src/cli/program.js';
import { EXECUTE, markerRan, threadProject, type ThreadProject } from '../threads/loop/fixtures.js';

/** Run the CLI in process with --json: exit code and the one JSON document. */
async function cli(
  argv: readonly string[],
): Promise<{ code: number; doc: Record<string, unknown> }> {
  const res = await cliText([...argv, '--json']);
  return { code: res.code, doc: JSON.parse(res.stdout) as Record<string, unknown> };
}

/** Run the CLI in process: exit code, stdout and stderr. */
async function cliText(
  argv: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { HOME: '/nonexistent' },
    cwd: '/nonexistent',
  };
  const code = await runProgram(argv, io, { version: VERSION, commands: COMMANDS });
  return { code, stdout, stderr };
}

describe('every command × every option', () => {
  it('each command refuses each option of any other command it does not take, as a usage error', async () => {
    const all = await commandLeaves();
    const universe = new Map<string, Option>();
    for (const leaf of all) for (const o of leaf.options) if (o.long) universe.set(o.long, o);
    expect(universe.size).toBeGreaterThan(40);
    let refused = 0;
    for (const leaf of all) {
      const own = new Set(leaf.options.map((o) => o.long));
      const args = leaf.args;
      for (const [flag, option] of universe) {
        // --json is every command's; a negated option's positive is not an option.
        if (own.has(flag) || flag === '--json') continue;
        const res = await cli([
          ...leaf.path,
          ...args,
          flag,
          ...(option.required || option.optional ? ['1'] : []),
        ]);
        expect(res.code, `${leaf.path.join(' ')} ${flag}`).toBe(2);
        expect(res.doc, `${leaf.path.join(' ')} ${flag}`).toMatchObject({
          ok: false,
          error: { code: 'USAGE_INVALID_ARGUMENT' },
        });
        refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(1000);
  });

  it("rye execute's table names every option the command has, each for tools, directives or both", async () => {
    const execute = (await commandLeaves()).find((l) => l.path.join(' ') === 'execute');
    const declared = execute!.options.map((o) => o.long).sort();
    expect(EXECUTE_FLAGS.map((r) => r.flag).sort()).toEqual(declared);
  });
});

describe('rye execute: the other item type’s options are refused before anything runs', () => {
  let p: ThreadProject;
  const answer = {
    tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'ran' } }],
    usage: { in: 100, out: 10 },
  };
  // Each test its own project (temp spaces go after each test).
  beforeEach(async () => {
    p = await threadProject([{ match: { directive: 'summarise' }, turns: [answer] }]);
  });
  afterEach(async () => {
    await p.server.close();
  });
  const threads = () => {
    const dir = join(p.project, '.ai', 'threads');
    // Each thread is a folder of its own (registry.db sits beside them).
    return existsSync(dir)
      ? readdirSync(dir, { withFileTypes: true })
          .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
          .map((e) => e.name)
      : [];
  };
  const TOOL = ['execute', 'tool', 't/echo', '--params', '{"x":1}'];

  it.each([
    [['--plan'], '--plan', '--dry-run'],
    [['--inputs', '{}'], '--inputs', '--params'],
    [['--spawn'], '--spawn', undefined],
    [['--limit', 'turns=1'], '--limit', undefined],
  ] as const)('a tool with %j runs nothing', async (extra, flag, instead) => {
    const res = await p.run([...TOOL, ...extra, '--json']);
    expect(res.code, res.stdout).toBe(2);
    const doc = res.json<{
      error: { code: string; message: string; details: Record<string, unknown> };
    }>();
    expect(doc.error.code).toBe('USAGE_INVALID_ARGUMENT');
    expect(doc.error.details).toMatchObject({
      flag,
      command: 'rye execute tool',
      applies_to: ['directive'],
    });
    if (instead !== undefined) expect(doc.error.message).toContain(instead);
    expect(markerRan(p)).toBe(false);
  });

  it.each([
    [['--params', '{}'], '--params'],
    [['--params-file', 'p.json'], '--params-file'],
    [['--frozen'], '--frozen'],
    [['--explain-sandbox'], '--explain-sandbox'],
    [['--plan', '--spawn'], '--plan'],
    [['--dry-run', '--spawn'], '--dry-run'],
  ] as const)('a directive with %j starts no thread and calls no provider', async (extra, flag) => {
    const res = await p.run([...EXECUTE, ...extra, '--json']);
    expect(res.code, res.stdout).toBe(2);
    const doc = res.json<{ error: { code: string; message: string } }>();
    expect(doc.error.code).toBe('USAGE_INVALID_ARGUMENT');
    expect(doc.error.message).toContain(flag);
    expect(p.server.requests).toHaveLength(0);
    expect(threads()).toEqual([]);
  });

  it('--dry-run on a directive is its plan: nothing called, no thread, no spend', async () => {
    const res = await p.run([...EXECUTE, '--dry-run', '--json']);
    expect(res.code, res.stdout).toBe(0);
    const plan = res.json<{ ok: boolean; plan: { directive: { id: string } } }>();
    expect(plan).toMatchObject({ ok: true, plan: { directive: { id: 'demo/summarise' } } });
    const same = await p.run([...EXECUTE, '--plan', '--json']);
    expect(same.json()).toEqual(plan);
    expect(p.server.requests).toHaveLength(0);
    expect(threads()).toEqual([]);
    expect(markerRan(p)).toBe(false);
  });

  it('as a control, the same tool and directive run without the foreign options', async () => {
    const tool = await p.run([...TOOL, '--json']);
    expect(tool.code, tool.stdout).toBe(0);
    expect(markerRan(p)).toBe(true);
    const run = await p.run([...EXECUTE, '--json']);
    expect(run.code, run.stdout).toBe(0);
    expect(p.server.requests).toHaveLength(1);
    expect(threads()).toHaveLength(1);
  });
});

describe('rye mcp serve', () => {
  it.each(['--host 0.0.0.0', '--allow-remote'])(
    'refuses %s without --http rather than serve stdio',
    async (flag) => {
      // mcp serve has no --json (stdout is the protocol's): the error is on stderr.
      const res = await cliText(['mcp', 'serve', ...flag.split(' ')]);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('USAGE_INVALID_ARGUMENT');
      expect(res.stderr).toContain(`${flag.split(' ')[0]} applies only with --http`);
    },
  );
});
