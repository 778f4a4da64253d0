// Per-plan git commits for LLM threads (issue 17; seed 002 "Git Integration").
// A repository's own configuration can make git run programs: hooks,
// core.hooksPath, core.fsmonitor, filter drivers, textconv, diff/merge
// drivers, an editor, a pager, gpg… None of that is authenticated, so git runs
// here with no system or global config, with every hook and command-running
// setting overridden on the command line, and a repository whose local config
// names any command-running key (or includes another file) is refused before
// git touches its work tree. Only node: built-ins: a tool call starts fast.
import { spawnSync } from 'node:child_process';
import { closeSync, lstatSync, openSync, realpathSync, rmSync } from 'node:fs';
import { join, sep } from 'node:path';
import { projectPath, readParams, respond } from '@rye/runtime';

export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'rye/core';
// What its sandbox may reach (docs/sandbox.md).
export const __permissions__ = { read: ['.'], write: ['.'] };
export const __tool_description__ =
  'Commit files of a repository inside the project (init if needed) with a fixed author and date, running no hook, filter or other repository-configured program';
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['commit', 'log'], default: 'commit' },
    repo: { type: 'string', default: '.', description: 'project-relative folder of the repository (created with git init when it has none)' },
    message: { type: 'string', description: 'the commit message; or give app, plan and summary' },
    app: { type: 'string', description: 'seed format: feat(<app>): <plan> — <summary>' },
    plan: { type: 'string' },
    summary: { type: 'string' },
    paths: { type: 'array', items: { type: 'string' }, default: ['.'], description: 'repo-relative paths to stage' },
    author_name: { type: 'string', default: 'rye' },
    author_email: { type: 'string', default: 'rye@localhost' },
    date: { type: 'string', description: 'author and committer date in UTC, e.g. 2026-02-11T00:00:00Z (default: now)' },
    max_count: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  },
  additionalProperties: false,
};

class GitError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/** Settings that run programs or move the work tree: refused in a repository's config. */
const UNSAFE_KEY = [
  /^core\.(hookspath|fsmonitor|fsmonitorhookversion|sshcommand|editor|pager|askpass|gitproxy|alternaterefscommand|worktree)$/,
  /^(include|includeif)\./,
  /^filter\./,
  /^diff\.(external|.+\.(textconv|command))$/,
  /^merge\..+\.driver$/,
  /^(gpg|credential|pager|sequence|difftool|mergetool|uploadpack|receive|submodule|sendemail|interactive)\./,
  /^(commit|tag)\.gpgsign$/,
];

/** Overrides on every git command: no hook, no fsmonitor, no signing, no pager or editor. */
const SAFE_CONFIG = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.editor=true',
  'core.attributesFile=/dev/null',
  'core.excludesFile=/dev/null',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'protocol.allow=never',
  'advice.detachedHead=false',
];

const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function gitEnv(identity) {
  // Built from nothing: GIT_DIR, GIT_CONFIG_*, GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND
  // or an inherited pager never reach git.
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent',
    XDG_CONFIG_HOME: '/nonexistent',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    ...(identity === undefined
      ? {}
      : {
          GIT_AUTHOR_NAME: identity.name,
          GIT_AUTHOR_EMAIL: identity.email,
          GIT_AUTHOR_DATE: identity.date,
          GIT_COMMITTER_NAME: identity.name,
          GIT_COMMITTER_EMAIL: identity.email,
          GIT_COMMITTER_DATE: identity.date,
        }),
  };
}

function git(repo, args, { identity, allowFail = false, withOverrides = true } = {}) {
  const overrides = withOverrides ? SAFE_CONFIG.flatMap((c) => ['-c', c]) : [];
  const result = spawnSync(
    'git',
    [...overrides, `--git-dir=${join(repo, '.git')}`, `--work-tree=${repo}`, ...args],
    { cwd: repo, env: gitEnv(identity), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
  );
  if (result.error)
    throw new GitError('GIT_FAILED', `Cannot run git: ${result.error.message}`, { args: args.slice(0, 3) });
  if (result.status !== 0 && !allowFail)
    throw new GitError('GIT_FAILED', `git ${args[0]} failed: ${result.stderr.trim().slice(0, 2000)}`, {
      args: args.slice(0, 3),
      status: result.status,
    });
  return result;
}

function checkText(name, value, max) {
  if (typeof value !== 'string' || value.trim() === '' || value.length > max || /[\0\r]/.test(value))
    throw new GitError('GIT_PARAMS_INVALID', `Cannot commit: ${name} must be non-empty text of at most ${max} characters, without NUL or CR`, {
      field: name,
    });
  return value;
}

/** The repository folder's real path, inside the project, and its state. */
function repoOf(root, raw) {
  const rel = raw ?? '.';
  if (typeof rel !== 'string' || rel.length > 1024 || /[\0\\]/.test(rel) || rel.startsWith('/') || rel.split('/').includes('..'))
    throw new GitError('GIT_PARAMS_INVALID', `Cannot use repo ${JSON.stringify(String(rel).slice(0, 200))}: give a project-relative folder without .. or backslashes`, {
      field: 'repo',
    });
  let real;
  try {
    real = realpathSync.native(join(root, rel));
  } catch {
    throw new GitError('GIT_REPO_MISSING', `Cannot commit in ${rel}: the folder does not exist`, { repo: rel });
  }
  if (real !== root && !real.startsWith(root + sep))
    throw new GitError('GIT_REPO_UNSAFE', `Cannot commit in ${rel}: it leads outside the project folder`, { repo: rel });
  let dotGit = null;
  try {
    dotGit = lstatSync(join(real, '.git'));
  } catch {
    // no repository yet
  }
  // A .git file or link points git at a repository somewhere else.
  if (dotGit !== null && !dotGit.isDirectory())
    throw new GitError('GIT_REPO_UNSAFE', `Cannot commit in ${rel}: its .git is not a folder (a gitdir file or link points elsewhere)`, {
      repo: rel,
    });
  return { real, rel, exists: dotGit !== null };
}

/** Refuse a repository whose own config names a command-running key. */
function checkConfig(repo) {
  // Listed without our overrides, so every entry comes from the repository
  // (local and worktree config): `key\nvalue\0` each.
  const listed = git(repo, ['config', '--list', '-z', '--no-includes'], { withOverrides: false });
  const unsafe = [];
  for (const entry of listed.stdout.split('\0')) {
    const key = entry.split('\n', 1)[0].toLowerCase();
    if (key !== '' && UNSAFE_KEY.some((re) => re.test(key))) unsafe.push(key);
  }
  if (unsafe.length > 0)
    throw new GitError('GIT_CONFIG_UNSAFE', `Cannot use the repository: its config sets ${[...new Set(unsafe)].join(', ')}, which can run programs`, {
      keys: [...new Set(unsafe)],
    });
}

function messageOf(params) {
  const structured = params.app !== undefined || params.plan !== undefined || params.summary !== undefined;
  if (structured === (params.message !== undefined))
    throw new GitError('GIT_PARAMS_INVALID', 'Cannot commit: give either message, or app, plan and summary', { field: 'message' });
  if (!structured) return checkText('message', params.message, 4096);
  const app = checkText('app', params.app, 100);
  const plan = checkText('plan', params.plan, 100);
  const summary = checkText('summary', params.summary, 500);
  return `feat(${app}): ${plan} — ${summary}`;
}

/** Held (created exclusively) in the repository folder while a first commit creates `.git`. */
const INIT_CLAIM = '.git.rye-init';

const present = (path) => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};
const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

/**
 * Make the folder a repository once, however many commits arrive at the same
 * time. Parallel children commit into an app nobody initialised: two `git
 * init` on one folder break each other ("could not lock config file"), and a
 * commit that sees a half-made `.git` fails on it. So the first caller claims
 * INIT_CLAIM while it runs `git init`, and every caller proceeds only once
 * `.git` exists and no claim is held (a claim is made before `.git` appears
 * and dropped after init ends, so that pair means the repository is whole).
 */
async function ensureRepo(repo) {
  const dotGit = join(repo.real, '.git');
  const claim = join(repo.real, INIT_CLAIM);
  for (let attempt = 0; ; attempt += 1) {
    const initialised = present(dotGit);
    if (initialised && !present(claim)) return;
    if (!initialised) {
      let claimed = false;
      try {
        closeSync(openSync(claim, 'wx'));
        claimed = true;
      } catch (error) {
        if (error?.code !== 'EEXIST')
          throw new GitError('GIT_FAILED', `Cannot initialise ${repo.rel}: ${error.message}`, { repo: repo.rel });
      }
      if (claimed) {
        try {
          if (!present(dotGit)) git(repo.real, ['init', '--quiet', '--initial-branch=main']);
        } finally {
          rmSync(claim, { force: true });
        }
        return;
      }
    }
    if (attempt >= 600)
      throw new GitError('GIT_FAILED', `Cannot initialise ${repo.rel}: ${claim} has been held for 30 s (a first commit that never finished; remove it)`, {
        repo: repo.rel,
      });
    await pause();
  }
}

/** Wait for the repository's commit lock (parallel children commit into one repository). */
async function withLock(repo, fn) {
  const lock = join(repo, '.git', 'rye-commit.lock');
  for (let attempt = 0; ; attempt += 1) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (error) {
      if (error?.code !== 'EEXIST' || attempt >= 600)
        throw new GitError('GIT_FAILED', `Cannot take the commit lock ${lock}: ${error.message}`, {});
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

async function commit(root, params) {
  const message = messageOf(params);
  const identity = {
    name: checkText('author_name', params.author_name ?? 'rye', 100),
    email: checkText('author_email', params.author_email ?? 'rye@localhost', 200),
    date: params.date ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  if (!DATE.test(identity.date))
    throw new GitError('GIT_PARAMS_INVALID', 'Cannot commit: date must be a UTC time such as 2026-02-11T00:00:00Z', { field: 'date' });
  const paths = params.paths ?? ['.'];
  if (!Array.isArray(paths) || paths.length === 0 || paths.length > 500)
    throw new GitError('GIT_PARAMS_INVALID', 'Cannot commit: paths must list 1 to 500 paths', { field: 'paths' });
  for (const p of paths) checkText('paths', p, 1024);
  await ensureRepo(repoOf(root, params.repo));
  // Checked again once it exists: another commit may have made the `.git`.
  const repo = repoOf(root, params.repo);
  checkConfig(repo.real);
  return withLock(repo.real, () => {
    // Literal pathspecs: a path is a name, never a glob or magic; git refuses one outside the repository.
    git(repo.real, ['--literal-pathspecs', 'add', '--all', '--', ...paths]);
    const staged = git(repo.real, ['diff', '--cached', '--quiet'], { allowFail: true });
    if (staged.status === 0)
      throw new GitError('GIT_NOTHING_TO_COMMIT', `Cannot commit in ${repo.rel}: nothing changed in ${paths.join(', ')}`, {
        repo: repo.rel,
      });
    git(repo.real, ['commit', '--quiet', '--no-verify', '--no-gpg-sign', '--cleanup=verbatim', '-m', message], { identity });
    const hash = git(repo.real, ['rev-parse', 'HEAD']).stdout.trim();
    const files = git(repo.real, ['diff-tree', '--root', '--no-commit-id', '--name-only', '-r', '-z', 'HEAD'])
      .stdout.split('\0')
      .filter((f) => f !== '');
    return { commit_hash: hash, message, repo: repo.rel, files };
  });
}

function log(root, params) {
  const repo = repoOf(root, params.repo);
  if (!repo.exists) throw new GitError('GIT_REPO_MISSING', `Cannot read the log of ${repo.rel}: it is not a repository`, { repo: repo.rel });
  checkConfig(repo.real);
  const max = params.max_count ?? 20;
  const out = git(repo.real, ['log', `--max-count=${max}`, '--format=%H%x1f%an%x1f%aI%x1f%s%x1e'], { allowFail: true });
  const commits = out.status !== 0 ? [] : out.stdout
    .split('\x1e')
    .map((r) => r.trim())
    .filter((r) => r !== '')
    .map((r) => {
      const [hash, author, date, subject] = r.split('\x1f');
      return { hash, author, date, subject };
    });
  return { repo: repo.rel, commits };
}

try {
  const params = readParams();
  const dir = projectPath();
  if (dir === null) throw new GitError('GIT_REPO_MISSING', 'Cannot find the project folder: no --project-path was given');
  const root = realpathSync.native(dir);
  const result = (params.action ?? 'commit') === 'log' ? log(root, params) : await commit(root, params);
  respond({ success: true, ...result });
} catch (error) {
  const known = error instanceof GitError;
  respond({
    success: false,
    code: known ? error.code : 'GIT_FAILED',
    error: error instanceof Error ? error.message : String(error),
    details: known ? error.details : {},
  });
  process.exitCode = 1;
}
