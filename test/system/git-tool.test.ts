/**
 * The `rye/core/git` system tool (issue 17): per-plan commits with a fixed
 * author and date, and no program from the repository's configuration ever
 * run. Each attack plants a command that would write a marker file; the
 * marker stays absent.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempSpaces } from '../helpers/temp-space.js';
import { runSystemTool, startSystemTool } from '../support/system-tool/run-system-tool.js';

const GIT = 'rye/core/git.mjs';
const DATE = '2026-02-11T00:00:00Z';
/** The marker a first commit holds while it creates the repository (git.mjs). */
const INIT_LOCK = '.git.rye-init';

function app() {
  const s = makeTempSpaces();
  s.write('app/server/index.js', 'export {};\n');
  const marker = join(s.root, 'marker');
  return { ...s, marker, repo: join(s.project, 'app') };
}

/** Plain git on the test's side (its own config isolated too). */
function git(repo: string, args: string[]): string {
  return execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
}

const commit = (project: string, extra: Record<string, unknown> = {}) =>
  runSystemTool(
    GIT,
    {
      repo: 'app',
      app: 'task-manager',
      plan: 'db_schema',
      summary: 'tasks table',
      date: DATE,
      ...extra,
    },
    project,
  );

describe('rye/core/git commit', () => {
  it("initialises the repository and commits in the seed's message format with the fixed author and date", () => {
    const p = app();
    const res = commit(p.project);
    expect(res.out).toMatchObject({
      success: true,
      message: 'feat(task-manager): db_schema — tasks table',
      repo: 'app',
      files: ['server/index.js'],
    });
    const hash = res.out['commit_hash'] as string;
    expect(hash).toMatch(/^[0-9a-f]{40}$/);
    expect(git(p.repo, ['log', '--format=%H|%an|%ae|%aI|%cI|%s']).trim()).toBe(
      `${hash}|rye|rye@localhost|2026-02-11T00:00:00+00:00|2026-02-11T00:00:00+00:00|feat(task-manager): db_schema — tasks table`,
    );
    // Same tree, author, date and message: the same hash in another project.
    const q = app();
    expect(commit(q.project).out['commit_hash']).toBe(hash);
    // Nothing changed since: refused with its own code.
    expect(commit(p.project).out).toMatchObject({ success: false, code: 'GIT_NOTHING_TO_COMMIT' });
  });

  it('parallel first commits into a folder with no repository all succeed (one init, no half-made .git seen)', async () => {
    // Wave 1's children commit at the same moment into an app nobody initialised:
    // two `git init` racing on one folder fail ("could not lock config file").
    for (let round = 0; round < 3; round += 1) {
      const p = app();
      const plans = ['db_schema', 'api_routes', 'react_ui', 'integration'];
      for (const plan of plans) p.write(`app/${plan}.js`, `// ${plan}\n`);
      const runs = await Promise.all(
        plans.map((plan) =>
          startSystemTool(
            GIT,
            { repo: 'app', app: 'a', plan, summary: 's', paths: [`${plan}.js`], date: DATE },
            p.project,
          ),
        ),
      );
      for (const run of runs) expect(run.out, run.stderr).toMatchObject({ success: true });
      expect(git(p.repo, ['log', '--format=%s']).trim().split('\n').sort()).toEqual(
        plans.map((plan) => `feat(a): ${plan} — s`).sort(),
      );
      expect(existsSync(join(p.repo, INIT_LOCK))).toBe(false);
    }
  });

  it('stages only the paths given', () => {
    const p = app();
    p.write('app/client/app.js', 'x\n');
    const res = commit(p.project, { paths: ['server'] });
    expect(res.out).toMatchObject({ success: true, files: ['server/index.js'] });
    expect(git(p.repo, ['status', '--porcelain'])).toContain('?? client/');
  });

  it('refuses bad parameters (GIT_PARAMS_INVALID) and a repo outside the project or behind a .git file (GIT_REPO_UNSAFE)', () => {
    const p = app();
    for (const extra of [
      { date: 'yesterday' },
      { message: 'x' },
      { summary: 'a\u0000b' },
      { repo: '../x' },
      { repo: '/tmp' },
    ])
      expect(commit(p.project, extra).out, JSON.stringify(extra)).toMatchObject({
        code: 'GIT_PARAMS_INVALID',
      });
    mkdirSync(join(p.root, 'elsewhere'));
    symlinkSync(join(p.root, 'elsewhere'), join(p.project, 'link'));
    expect(commit(p.project, { repo: 'link' }).out).toMatchObject({ code: 'GIT_REPO_UNSAFE' });
    p.write('app/.git', 'gitdir: /tmp/somewhere-else\n');
    expect(commit(p.project).out).toMatchObject({ code: 'GIT_REPO_UNSAFE' });
  });
});

describe('rye/core/git runs no program the repository configures', () => {
  function plant(repo: string, marker: string) {
    git(repo, ['init', '-q', '-b', 'main']);
    const script = join(repo, '..', 'evil.sh');
    writeFileSync(script, `#!/bin/sh\necho ran >> ${marker}\ncat\n`);
    chmodSync(script, 0o755);
    return script;
  }

  it.each([
    [
      'a pre-commit hook in .git/hooks',
      (repo: string, evil: string) => {
        writeFileSync(join(repo, '.git/hooks/pre-commit'), `#!/bin/sh\n${evil}\n`);
        chmodSync(join(repo, '.git/hooks/pre-commit'), 0o755);
        writeFileSync(join(repo, '.git/hooks/post-commit'), `#!/bin/sh\n${evil}\n`);
        chmodSync(join(repo, '.git/hooks/post-commit'), 0o755);
      },
    ],
  ])('commits with %s present, and the hook never runs', (_what, arm) => {
    const p = app();
    const evil = plant(p.repo, p.marker);
    arm(p.repo, evil);
    const res = commit(p.project);
    expect(res.out).toMatchObject({ success: true });
    expect(existsSync(p.marker)).toBe(false);
    // Control: plain git does run the planted hook.
    git(p.repo, [
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '--allow-empty',
      '-qm',
      'x',
    ]);
    expect(existsSync(p.marker)).toBe(true);
  });

  it.each([
    ['core.hooksPath', ['core.hooksPath', 'hooks-dir']],
    ['core.fsmonitor', ['core.fsmonitor', 'EVIL']],
    ['a clean filter', ['filter.evil.clean', 'EVIL']],
    ['a process filter', ['filter.evil.process', 'EVIL']],
    ['a textconv driver', ['diff.evil.textconv', 'EVIL']],
    ['core.sshCommand', ['core.sshCommand', 'EVIL']],
    ['an includeIf', ['includeIf.gitdir:/.path', '/tmp/evil.config']],
    ['core.worktree', ['core.worktree', '/tmp']],
  ])(
    'refuses a repository whose config sets %s (GIT_CONFIG_UNSAFE); nothing runs or is committed',
    (_what, [key, value]) => {
      const p = app();
      const evil = plant(p.repo, p.marker);
      mkdirSync(join(p.repo, 'hooks-dir'));
      writeFileSync(join(p.repo, 'hooks-dir/pre-commit'), `#!/bin/sh\n${evil}\n`);
      chmodSync(join(p.repo, 'hooks-dir/pre-commit'), 0o755);
      writeFileSync(join(p.repo, '.gitattributes'), '* filter=evil diff=evil\n');
      git(p.repo, ['config', key as string, (value as string).replace('EVIL', evil)]);
      const res = commit(p.project);
      expect(res.out).toMatchObject({ success: false, code: 'GIT_CONFIG_UNSAFE' });
      expect((res.out['details'] as { keys: string[] }).keys).toContain(
        (key as string).toLowerCase(),
      );
      expect(existsSync(p.marker)).toBe(false);
      expect(git(p.repo, ['log', '--oneline', '--all']).trim()).toBe('');
    },
  );

  it('ignores GIT_* variables and a global config from the caller environment', () => {
    const p = app();
    const evil = plant(p.repo, p.marker);
    const globalConfig = join(p.root, 'global.gitconfig');
    writeFileSync(
      globalConfig,
      `[core]\n\thooksPath = ${join(p.repo, 'hooks-dir')}\n\tfsmonitor = ${evil}\n`,
    );
    mkdirSync(join(p.repo, 'hooks-dir'));
    writeFileSync(join(p.repo, 'hooks-dir/pre-commit'), `#!/bin/sh\n${evil}\n`);
    chmodSync(join(p.repo, 'hooks-dir/pre-commit'), 0o755);
    const res = runSystemTool(GIT, { repo: 'app', message: 'm', date: DATE }, p.project, {
      ...process.env,
      GIT_CONFIG_GLOBAL: globalConfig,
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.fsmonitor',
      GIT_CONFIG_VALUE_0: evil,
      GIT_DIR: join(p.root, 'elsewhere.git'),
    });
    expect(res.out).toMatchObject({ success: true });
    expect(existsSync(p.marker)).toBe(false);
  });
});
