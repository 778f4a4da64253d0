/**
 * The CLI runs from its esbuild bundle (dist/cli) and loads only what a command
 * line needs: `rye --version` nothing but its entry, `rye --help` the argument
 * parser, a command its own code. Every other CLI test spawns bin/rye.js too,
 * so the whole CLI suite runs against the bundle.
 */
import { Command, Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, VERSION } from '../../src/cli/main.js';
import { commandName } from '../../src/cli/program.js';
import { loadedText, ryeLoading } from '../helpers/loaded-files.js';

const io = { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: '/' };
const run = async (): Promise<void> => undefined;

/** The esbuild bundle marks each source file it holds with a `// path` comment. */
function holds(files: readonly string[], source: string): string[] {
  return files.filter((file) => loadedText(file).includes(`\n// ${source}`));
}

describe('lazy commands', () => {
  it('lists every command in help exactly as the command it loads describes itself', async () => {
    const help = new Help();
    for (const entry of COMMANDS) {
      const command = (await entry.load())(io, run);
      expect(command).toBeInstanceOf(Command);
      expect(help.subcommandTerm(command), commandName(entry)).toBe(entry.term);
      expect(help.subcommandDescription(command), commandName(entry)).toBe(entry.summary);
    }
    const names = COMMANDS.map(commandName);
    expect(new Set(names).size).toBe(names.length);
  });

  it('rye --version loads nothing but the bundle entry, and no ES module', async () => {
    const res = await ryeLoading(['--version']);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`${VERSION}\n`);
    // The CommonJS entry and the main module's body (src/cli/entry.ts).
    expect(res.files).toEqual(['bin/rye.js', 'dist/cli/entry.cjs', 'dist/cli/main.body.js']);
    expect(res.modules).toEqual([]);
    expect(holds(res.files, 'src/')).toEqual(['dist/cli/entry.cjs', 'dist/cli/main.body.js']);
    expect(holds(res.files, 'node_modules/')).toEqual([]);
  });

  it('rye -V and rye --version with another word still go through the parser', async () => {
    expect((await ryeLoading(['-V'])).stdout).toBe(`${VERSION}\n`);
    const json = await ryeLoading(['--version', '--json']);
    expect(json.stdout).toBe(`${VERSION}\n`);
  });

  it('rye --help lists every command without loading any', async () => {
    const res = await ryeLoading(['--help']);
    expect(res.code).toBe(0);
    for (const entry of COMMANDS) expect(res.stdout).toContain(`  ${entry.term} `);
    expect(holds(res.files, 'src/cli/commands/')).toEqual([]);
    expect(res.files.every((f) => f === 'bin/rye.js' || f.startsWith('dist/cli/'))).toBe(true);
  });

  it('rye help <command> loads that command for its full help', async () => {
    const res = await ryeLoading(['help', 'verify-file']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('--item-type <type>');
    expect(holds(res.files, 'src/cli/commands/verify-file.ts')).toHaveLength(1);
    expect(holds(res.files, 'src/cli/commands/execute.ts')).toEqual([]);
  });

  it('a command runs from the bundle, never from the library build', async () => {
    const res = await ryeLoading(['verify-file', '--help']);
    expect(res.code).toBe(0);
    expect(res.files.filter((f) => f.startsWith('dist/src/'))).toEqual([]);
    expect(holds(res.files, 'src/cli/commands/verify-file.ts')).toHaveLength(1);
    expect(holds(res.files, 'src/cli/commands/bundle.ts')).toEqual([]);
    expect(holds(res.files, 'src/executor/')).toEqual([]);
  });

  it('an unknown command is still a usage error with a suggestion', async () => {
    const res = await ryeLoading(['verfy-file', '--json']);
    expect(res.code).toBe(2);
    expect(res.stdout).toContain('verify-file');
  });
});
