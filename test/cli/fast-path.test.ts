/**
 * The argument fast path (src/cli/fast-path.ts) runs `rye verify-file`,
 * `rye verify`, `rye execute tool` and `rye bundle verify` without commander. It must never answer
 * differently: every command line below runs through main() (fast path when
 * recognised) and through commander alone, and the exit code, stdout and
 * stderr must be the same, for successes, refusals and usage errors alike.
 * Each case says whether the fast path takes it, so a fast path that quietly
 * stopped recognising a shape (or started taking one) fails too.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createBundle } from '../../src/bundle/index.js';
import type { CliIo } from '../../src/cli/context.js';
import { readSigner } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { FAST_COMMANDS, parseFastArgv } from '../../src/cli/fast-path.js';
import { COMMANDS, VERSION, main } from '../../src/cli/main.js';
import { commandName, runProgram } from '../../src/cli/program.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { loadedText, ryeLoading } from '../helpers/loaded-files.js';

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let p: ExecProject;
let trust: string;
let tool: string;

// Per test: the temporary spaces are removed after each one.
beforeEach(async () => {
  p = await makeExecProject();
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
  p.write('.ai/tools/t/unsigned.py', '__version__ = "1.0.0"\nprint("{}")\n');
  await p.sign('tool', 't/noop');
  p.write('params.json', '{"a": 1}');
  // Bundle `t` lists both tools; bundle `t2` has a changed file.
  p.write('.ai/tools/t2/one.py', 'print(1)\n');
  for (const id of ['t', 't2'])
    await createBundle({
      spaces: p.spaces,
      bundleId: id,
      version: '1.0.0',
      signer: await readSigner(keyDir(p.spaces)),
    });
  p.write('.ai/tools/t2/one.py', 'print(2)\n');
  const keys = join(p.user, '.ai', 'trusted_keys');
  trust = join(keys, readdirSync(keys).find((f) => f.endsWith('.toml')) ?? '');
  tool = join(p.project, '.ai', 'tools', 't', 'noop.py');
}, 60_000);

/** Runs one command line in process with captured streams; lockfiles removed first. */
async function outcome(
  argv: readonly string[],
  via: (argv: readonly string[], io: CliIo) => Promise<number>,
): Promise<Outcome> {
  rmSync(join(p.project, '.ai', 'lockfiles'), { recursive: true, force: true });
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: p.env,
    cwd: p.project,
  };
  const code = await via(argv, io);
  // A run's duration is the only thing that may differ between two runs.
  const timeless = (s: string) =>
    s.replace(/"duration_ms": [\d.]+/g, '"duration_ms": 0').replace(/^\([\d.]+ ms\)$/gm, '(0 ms)');
  return { code, stdout: timeless(stdout), stderr: timeless(stderr) };
}

const viaMain = (argv: readonly string[], io: CliIo) => main(argv, io);
const viaCommander = (argv: readonly string[], io: CliIo) =>
  runProgram(argv, io, { version: VERSION, commands: COMMANDS });

/** [command line, taken by the fast path]; paths filled in once the project exists. */
function cases(): [string[], boolean][] {
  const vf = (...rest: string[]) => ['verify-file', ...rest];
  const ex = (...rest: string[]) => ['execute', ...rest];
  return [
    // verify-file: successes and refusals the command itself reports
    [vf(tool, '--item-type', 'tool', '--trust', trust), true],
    [vf(tool, '--item-type', 'tool', '--trust', trust, '--json'), true],
    [vf('--json', '--item-type', 'tool', tool, '--trust', trust), true],
    [vf(tool, '--item-type=tool', `--trust=${trust}`), true],
    [vf(tool, '--item-type', 'tool', '--trust', trust, '--trust', trust), true],
    [vf(tool, '--item-type', 'tool'), true],
    [vf('.ai/tools/t/noop.py', '--item-type', 'tool', '--project', p.project), true],
    [vf(tool, '--item-type', 'tool', '--trust', trust, '--item-id', 't/noop'), true],
    [vf(tool, '--item-type', 'tool', '--trust', trust, '--item-id', 'other/id', '--json'), true],
    [vf(tool, '--item-type', 'tool', '--item-id', 'Not An Id!'), true],
    [vf(tool, '--item-type', 'knowledge', '--trust', trust), true],
    [vf(tool, '--item-type', 'knowledge', '--item-type', 'tool', '--trust', trust), true],
    [vf(tool, '--item-type', 'bogus', '--json'), true],
    [vf(tool, '--item-type', ''), true],
    [vf('.ai/tools/t/unsigned.py', '--item-type', 'tool', '--trust', trust), true],
    [vf('.ai/tools/t/unsigned.py', '--item-type', 'tool', '--json'), true],
    [vf('missing.py', '--item-type', 'tool', '--trust', trust), true],
    [vf('-', '--item-type', 'tool'), true],
    [vf('', '--item-type', 'tool', '--json'), true],
    [vf('bad\u001bname\n.py', '--item-type', 'tool'), true],
    [vf(tool, '--item-type', 'tool', '--trust', 'no-such-key.toml'), true],
    [vf(tool, '--item-type', 'tool', '--project', join(p.root, 'nowhere')), true],
    // verify-file: usage errors and help, commander's alone
    [vf(tool), false],
    [vf(tool, '--json'), false],
    [vf('--item-type', 'tool'), false],
    [vf(tool, tool, '--item-type', 'tool'), false],
    [vf(tool, '--item-type', 'tool', '--help'), false],
    [vf('-h'), false],
    [vf(tool, '--item-typ', 'tool'), false],
    [vf(tool, '--item-type'), false],
    [vf(tool, '--item-type', 'tool', '--trust'), false],
    [vf(tool, '--item-type', 'tool', '--trust', '--json'), false],
    [vf(tool, '--item-type', '-x'), false],
    [vf(tool, '--item-type', 'tool', '--json=1'), false],
    [vf('--item-type', 'tool', '--', tool), false],
    [vf(tool, '--item-type', 'tool', '--frozen'), false],
    [vf(tool, '--item-type', 'tool', '-j'), false],
    [['verify-files', tool, '--item-type', 'tool'], false],
    [['--json', 'verify-file', tool, '--item-type', 'tool'], false],
    // verify
    [['verify', 'tool', 't/noop'], true],
    [['verify', 'tool', 't/*', '--json'], true],
    [['verify', '--require-full-coverage', 'tool', 't/noop'], true],
    [['verify', 'tool', 't/unsigned', '--project', p.project], true],
    [['verify', 'bogus', 't/noop', '--json'], true],
    [['verify', 'tool', 'no/such'], true],
    [['verify', 'tool'], false],
    [['verify', 'tool', 't/noop', 'more'], false],
    [['verify', 'tool', 't/noop', '--help'], false],
    [['verify', 'tool', 't/noop', '--require-full-coverage=yes'], false],
    [['verify', 'tool', 't/noop', '--project'], false],
    // execute tool
    [ex('tool', 't/noop', '--json'), true],
    [ex('tool', 't/noop'), true],
    [ex('--json', 'tool', 't/noop', '--dry-run'), true],
    [ex('tool', 't/noop', '--dry-run'), true],
    [ex('tool', 't/noop', '--params', '{}', '--json'), true],
    [ex('tool', 't/noop', '--params={"a":-1}', '--json'), true],
    [ex('tool', 't/noop', '--params', '[1]', '--json'), true],
    [ex('tool', 't/noop', '--params', 'not json'), true],
    [ex('tool', 't/noop', '--params-file', 'params.json', '--json'), true],
    [ex('tool', 't/noop', '--params-file', 'missing.json', '--json'), true],
    [ex('tool', 't/noop', '--params', '{}', '--params-file', 'params.json'), true],
    [ex('tool', 't/noop', '--frozen', '--json'), true],
    [ex('tool', 't/noop', '--caps', 'not a capability', '--json'), true],
    [ex('tool', 't/unsigned', '--json'), true],
    [ex('tool', 't/unsigned'), true],
    [ex('tool', 'no/such', '--project', p.project), true],
    [ex('tool', 't/noop', '--project', join(p.root, 'nowhere'), '--json'), true],
    [ex('directive', 'no/such', '--plan', '--json'), false],
    [ex('knowledge', 't/noop'), false],
    [ex('tool', 't/noop', '--plan'), false],
    [ex('tool', 't/noop', '--limit', 'turns=1'), false],
    [ex('tool', 't/noop', '--detached-worker'), false],
    [ex('tool', 't/noop', '--help'), false],
    [ex('tool'), false],
    [ex('tool', 't/noop', '--params'), false],
    [ex('tool', 't/noop', '--params', '-1'), false],
    [ex('tool', 't/noop', '--dry-run=true'), false],
    [ex('tool', 't/noop', 'extra', '--json'), false],
    // bundle verify
    [['bundle', 'verify', 't'], true],
    [['bundle', 'verify', 't', '--json'], true],
    [['bundle', 'verify', '--json', 't', '--project', p.project], true],
    [['bundle', 'verify', 't2'], true],
    [['bundle', 'verify', 't2', '--json'], true],
    [['bundle', 'verify', 'no/such', '--json'], true],
    [['bundle', 'verify', 'Not An Id!'], true],
    [['bundle', 'verify', 't', '--project', join(p.root, 'nowhere')], true],
    [['bundle', '--json', 'verify', 't'], false],
    [['bundle', 'verify'], false],
    [['bundle', 'verify', 't', 't2'], false],
    [['bundle', 'verify', 't', '--help'], false],
    [['bundle', 'verify', 't', '--exclude', 'x'], false],
    [['bundle', 'verify', 't', '--json=1'], false],
    [['bundle', 'inspect', 't'], false],
    [['bundle', 'verify-all', 't'], false],
  ];
}

describe('the argument fast path', () => {
  it('answers every command line exactly as commander does', async () => {
    const codes = new Set<number>();
    for (const [argv, fast] of cases()) {
      const label = JSON.stringify(argv);
      expect(parseFastArgv(argv) !== undefined, `${label}: fast path taken`).toBe(fast);
      const byCommander = await outcome(argv, viaCommander);
      const byMain = await outcome(argv, viaMain);
      expect(byMain, label).toEqual(byCommander);
      if (fast) codes.add(byMain.code);
    }
    // The fast cases cover success, failure, usage error and refusal.
    expect([...codes].sort()).toEqual([0, 1, 2, 3]);
  }, 180_000);

  it('declares each option as the command does in commander', async () => {
    const io: CliIo = { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: '/' };
    for (const fast of FAST_COMMANDS) {
      const entry = COMMANDS.find((c) => commandName(c) === fast.name);
      expect(entry, fast.name).toBeDefined();
      const top = (await entry!.load())(io, async () => undefined);
      const command =
        fast.subcommand === undefined
          ? top
          : top.commands.find((c) => c.name() === fast.subcommand);
      if (command === undefined)
        throw new Error(`${fast.name} ${fast.subcommand}: no such command`);
      // A subcommand's parent takes no option the fast path would read as the subcommand's.
      if (fast.subcommand !== undefined) expect(top.options, fast.name).toEqual([]);
      const args = command.registeredArguments;
      expect(args.length, fast.name).toBe(fast.argumentCount);
      expect(args.every((a) => a.required && !a.variadic)).toBe(true);
      const option = (long: string) => {
        const found = command.options.find((o) => o.long === long);
        expect(found, `${fast.name} ${long}`).toBeDefined();
        return found!;
      };
      for (const flag of fast.flags) {
        expect(option(flag).required || option(flag).optional, flag).toBe(false);
        expect(option(flag).negate, flag).toBe(false);
      }
      for (const long of [...fast.values, ...fast.lists]) {
        expect(option(long).required, long).toBe(true);
        expect(option(long).variadic, long).toBe(false);
      }
      for (const long of fast.values) expect(option(long).defaultValue, long).toBeUndefined();
      for (const long of fast.lists) expect(option(long).defaultValue, long).toEqual([]);
      for (const o of command.options)
        expect(o.mandatory, o.long).toBe(fast.required.includes(o.long ?? ''));
    }
  });

  it('the bundle runs verify-file, execute tool and bundle verify without loading commander; --help loads it', async () => {
    const holding = (files: readonly string[], source: string) =>
      files.filter((f) => loadedText(f).includes(`\n// ${source}`));
    const verified = await ryeLoading(
      ['verify-file', tool, '--item-type', 'tool', '--trust', trust],
      { env: p.env },
    );
    expect(verified.code).toBe(0);
    expect(holding(verified.files, 'node_modules/commander/')).toEqual([]);
    // One file past the entry: the runner built apart, run from its body (the
    // entry recognised the command line: no main.js either); no ES module.
    expect(holding(verified.files, 'src/')).toEqual([
      'dist/cli/entry.cjs',
      'dist/cli/fast/verify-file.body.js',
    ]);
    expect(verified.modules).toEqual([]);
    // Before execute writes a lockfile into the bundle's folders.
    const bundled = await ryeLoading(['bundle', 'verify', 't', '--project', p.project], {
      env: p.env,
    });
    expect(bundled.code, bundled.stdout).toBe(0);
    expect(holding(bundled.files, 'node_modules/commander/')).toEqual([]);
    expect(bundled.modules).toEqual([]);
    const executed = await ryeLoading(
      ['execute', 'tool', 't/noop', '--project', p.project, '--json'],
      {
        env: p.env,
      },
    );
    expect(executed.code, executed.stdout).toBe(0);
    expect(JSON.parse(executed.stdout)).toMatchObject({ ok: true, data: {} });
    expect(holding(executed.files, 'node_modules/commander/')).toEqual([]);
    // A bundles folder exists here: the bundle code is an on-demand ES module.
    expect(executed.modules.filter((f) => !f.startsWith('dist/cli/fast/chunks/'))).toEqual([
      'dist/cli/fast/execute.js',
    ]);
    const help = await ryeLoading(['verify-file', '--help'], { env: p.env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--item-type <type>');
    expect(holding(help.files, 'node_modules/commander/')).toHaveLength(1);
  }, 60_000);
});
