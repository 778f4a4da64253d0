import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Argument, Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { completionScript } from '../../src/cli/completion-scripts.js';
import { completionSpec } from '../../src/cli/completion-spec.js';
import { rye } from '../helpers/cli.js';

const has = (shell: string): boolean => spawnSync(shell, ['-c', 'true']).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'rye-completion-'));

async function script(shell: string): Promise<string> {
  const res = await rye(['completion', shell]);
  expect(res.code, res.stderr).toBe(0);
  const path = join(dir, `rye.${shell}`);
  writeFileSync(path, res.stdout);
  return path;
}

/** Run `code` in `shell` and return stdout. */
function run(shell: string, args: string[]): string {
  return execFileSync(shell, args, { encoding: 'utf8', env: { ...process.env, HOME: dir } });
}

describe('rye completion bash', () => {
  it('parses (bash -n) and completes commands, subcommands, options and values', async () => {
    const path = await script('bash');
    expect(spawnSync('bash', ['-n', path]).status).toBe(0);
    const cases: [string[], string][] = [
      [['rye', 'bun'], 'bundle'],
      [['rye', 'bundle', 'c'], 'create'],
      [['rye', 'sign', ''], 'directive tool knowledge --json --project --space --caps -h --help'],
      [['rye', 'sign', '--space', ''], 'project user system'],
      [['rye', 'sign', 'tool', '--sp'], '--space'],
      [['rye', 'bundle', 'create', 'x', '--version', ''], ''],
      [['rye', 'registry', 'keys', 'r'], 'remove'],
      [['rye', 'completion', ''], 'bash zsh fish --json -h --help'],
      [['rye', 'init', '--'], '--json --project --no-key --help'],
    ];
    const probe = cases
      .map(
        ([words]) =>
          `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _rye; echo "\${COMPREPLY[*]}"`,
      )
      .join('\n');
    const out = run('bash', ['-c', `source '${path}'\n${probe}`]).split('\n');
    cases.forEach(([words, expected], i) => expect(out[i], words.join(' ')).toBe(expected));
  });
});

describe.skipIf(!has('zsh'))('rye completion zsh', () => {
  it('parses (zsh -n) and completes with the zsh completion functions', async () => {
    const path = await script('zsh');
    expect(spawnSync('zsh', ['-n', path]).status).toBe(0);
    // The completion builtins, recorded instead of drawn (no terminal here).
    const stubs = [
      'compdef() { }',
      'compadd() { [[ "$1" == "--" ]] && shift; print -r -- "add: $*"; }',
      '_describe() { print -r -- "describe: ${(P)4}"; }',
      '_files() { print -r -- "files"; }',
    ].join('\n');
    const probe = (...words: string[]) =>
      `words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _rye; print -- ---`;
    const out = run('zsh', [
      '-c',
      `${stubs}\nsource '${path}'\n${[
        probe('rye', ''),
        probe('rye', 'sign', '--space', ''),
        probe('rye', 'verify-file', ''),
        probe('rye', 'registry', 'keys', ''),
      ].join('\n')}`,
    ]).split('---\n');
    expect(out[0]).toMatch(/^describe: init:make this folder a rye project/);
    expect(out[0]).toContain('completion:print a shell completion script');
    expect(out[1]).toBe('add: project user system\n');
    expect(out[2]).toMatch(/^files\n/);
    expect(out[3]).toContain('remove:remove an author key');
  });
});

describe.skipIf(!has('fish'))('rye completion fish', () => {
  it('parses (fish -n) and completes through `complete -C`', async () => {
    const path = await script('fish');
    expect(spawnSync('fish', ['-n', path]).status).toBe(0);
    const probe = (line: string) => `complete -C '${line}'; echo ---`;
    const out = run('fish', [
      '-c',
      `source '${path}'\n${[probe('rye bun'), probe('rye sign --space '), probe('rye registry keys ')].join('\n')}`,
    ]).split('---\n');
    expect(out[0]).toMatch(/^bundle\tsigned bundle manifests/);
    expect((out[1] ?? '').split('\n').map((l) => l.split('\t')[0])).toEqual([
      'project',
      'system',
      'user',
      '',
    ]);
    expect(out[2]).toContain('remove\tremove an author key');
  });
});

describe('completionSpec()', () => {
  it('reads commands, options, value choices and argument hints from a commander tree', () => {
    const root = new Command('tool').option('-q, --quiet', 'say less');
    root
      .command('put')
      .description('put it')
      .option('--space <space>', 'where')
      .option('--mode <mode>', 'how')
      .addArgument(new Argument('<kind>', 'what').choices(['a', 'b']))
      .argument('<type>', 'item type')
      .argument('<file>', 'a file');
    const spec = completionSpec(root);
    expect(spec.map((c) => c.path)).toEqual(['', ' put']);
    expect(spec[0]?.subcommands).toEqual([{ name: 'put', description: 'put it' }]);
    expect(spec[0]?.options.map((o) => [o.short, o.long, o.value])).toEqual([
      ['-q', '--quiet', 'none'],
      ['-h', '--help', 'none'],
    ]);
    const put = spec[1];
    expect(put?.options.map((o) => [o.long, o.value])).toEqual([
      ['--space', ['project', 'user', 'system']],
      ['--mode', 'any'],
      ['--help', 'none'],
    ]);
    expect(put?.args).toEqual([['a', 'b'], ['directive', 'tool', 'knowledge'], 'file']);
  });

  it('rye completion lists every command rye --help shows (it cannot go stale)', async () => {
    const help = await rye(['--help']);
    const commands = [...help.stdout.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)]
      .map((m) => m[1])
      .filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThan(10);
    const bash = (await rye(['completion', 'bash'])).stdout;
    const root = /"\) list="\$list ([^"]*)"/.exec(bash)?.[1]?.split(' ') ?? [];
    for (const c of commands) expect(root, c).toContain(c);
  });

  it('refuses another shell as a usage error', async () => {
    const res = await rye(['completion', 'powershell']);
    expect(res.code).toBe(2);
  });
});

describe('rye completion --json', () => {
  it('wraps the same script in {ok, shell, script}', async () => {
    const bare = (await rye(['completion', 'fish'])).stdout;
    const doc = (await rye(['completion', 'fish', '--json'])).json();
    expect(doc).toEqual({ ok: true, shell: 'fish', script: bare });
  });
});

describe('completionScript() quoting', () => {
  const odd = `it's "odd" \\ $HOME; rm -rf ~`;
  const tree = () => {
    const root = new Command('rye');
    root.command('put').description(odd);
    return completionSpec(root);
  };

  it.skipIf(!has('fish'))(
    'keeps a description with quotes, backslashes and $ as text in fish',
    () => {
      const path = join(dir, 'odd.fish');
      writeFileSync(path, completionScript('fish', tree()));
      const out = run('fish', ['-c', `source '${path}'; complete -C 'rye pu'`]);
      expect(out).toBe(`put\t${odd}\n`);
    },
  );

  it.skipIf(!has('zsh'))('keeps it as text in zsh', () => {
    const path = join(dir, 'odd.zsh');
    writeFileSync(path, completionScript('zsh', tree()));
    const stubs = 'compdef() { }\ncompadd() { }\n_describe() { print -r -- "${(P)4}"; }';
    const out = run('zsh', ['-c', `${stubs}\nsource '${path}'\nwords=(rye ''); CURRENT=2; _rye`]);
    expect(out).toBe(`put:${odd}\n`);
  });
});
