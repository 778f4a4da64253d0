/**
 * The real program a sandbox runs, and the install prefix it needs to see
 * (CONTAINMENT.md §1.5: "the interpreter's real install prefix, resolved from
 * its real path; never the whole $HOME"). A version manager's shim (pyenv,
 * nodenv, asdf: a script that finds the interpreter under the home folder at
 * run time) cannot work inside, so it is asked once, outside, which binary it
 * runs; the answer is kept in the user's cache, keyed by the shim's identity.
 */
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { unavailable } from './host.js';
import { realOrSelf } from './mounts.js';

/** The program to exec inside, and what must be visible for it to run. */
export interface SandboxProgram {
  /** Absolute real path of an executable file (ELF, or a script whose interpreter is a system one). */
  readonly binary: string;
  /**
   * Paths to bind read-only besides the system ones: the install prefix, or
   * the binary alone when its prefix would hold the home folder or the user
   * space (an interpreter in `~/bin`); possibly none.
   */
  readonly mounts: readonly string[];
}

/** Folders whose content no interpreter prefix may bring into a sandbox. */
export interface ProgramLimits {
  readonly home: string | undefined;
  readonly userAi: string;
  /**
   * The project. Its view (masks, write binds) is built from the
   * tool's permissions alone: a prefix overlapping it is never bound.
   */
  readonly project: string;
}

const SYSTEM_ROOTS = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/'];
const PROBES: readonly { readonly name: RegExp; readonly args: readonly string[] }[] = [
  // -I: isolated, no user site, no PYTHON* variables, no working directory on sys.path.
  { name: /^python[0-9.]*$/, args: ['-I', '-c', 'import sys; sys.stdout.write(sys.executable)'] },
  { name: /^node$/, args: ['-e', 'process.stdout.write(process.execPath)'] },
];

const known = new Map<string, SandboxProgram>();

/**
 * Resolve `command` (absolute) to the program a sandbox runs. An ELF binary
 * is itself; a script is run by the interpreter its `#!` names when that is a
 * system one, or, for a shim named like python or node, replaced by the binary
 * it answers with.
 *
 * @throws RyeError SANDBOX_UNAVAILABLE when the command is a script that
 *   cannot run inside (its interpreter lives in the home folder, say).
 */
export function sandboxProgram(
  command: string,
  env: Readonly<Record<string, string | undefined>>,
  cacheDir: string,
  limits: ProgramLimits,
): SandboxProgram {
  let real: string;
  let stat;
  try {
    real = realpathSync(command);
    stat = statSync(real);
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
    throw new RyeError('EXECUTE_COMMAND_NOT_FOUND', `Cannot run ${command}: command not found`, {
      command,
      errno,
    });
  }
  const key = `${command}\0${real}\0${stat.size}\0${stat.mtimeMs}\0${env['PYENV_VERSION'] ?? ''}`;
  const memo = `${key}\0${limits.home ?? ''}\0${limits.userAi}\0${limits.project}`;
  const hit = known.get(memo);
  if (hit !== undefined) return hit;
  const head = readHead(real);
  const binary = head.startsWith('#!')
    ? scriptBinary(command, real, head, env, cacheDir, key)
    : real;
  const program = {
    binary,
    mounts: mountsOf(binary, { ...limits, project: realOrSelf(limits.project) }),
  };
  known.set(memo, program);
  return program;
}

/** The binary a script stands for: the one a shim answers with, or the script itself. */
function scriptBinary(
  command: string,
  real: string,
  head: string,
  env: Readonly<Record<string, string | undefined>>,
  cacheDir: string,
  key: string,
): string {
  const probe = PROBES.find((p) => p.name.test(basename(command)));
  if (probe !== undefined)
    return cachedProbe(cacheDir, key) ?? runProbe(command, probe.args, env, cacheDir, key);
  const interpreter = /^#!\s*(\S+)/.exec(head)?.[1] ?? '';
  if (SYSTEM_ROOTS.some((root) => interpreter.startsWith(root))) return real;
  throw unavailable(
    `${command} is a script run by ${interpreter || 'an unknown interpreter'}, which a sandbox cannot see`,
    'ENOEXEC',
    'point the runtime variable (e.g. RYE_PYTHON, RYE_NODE) at the real interpreter binary',
  );
}

function runProbe(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cacheDir: string,
  key: string,
): string {
  // From `/`: a version file in the project (pyenv's .python-version) is
  // unsigned and does not choose the interpreter; the operator's environment does.
  const run = spawnSync(command, [...args], {
    cwd: '/',
    env: { ...env },
    encoding: 'utf8',
    timeout: 10_000,
  });
  const binary = (run.stdout ?? '').trim();
  if (run.status !== 0 || !isAbsolute(binary))
    throw unavailable(
      `cannot find the interpreter behind ${command}`,
      'ENOEXEC',
      'point the runtime variable (e.g. RYE_PYTHON) at the real interpreter binary',
    );
  const realBinary = realpathSync(binary);
  saveProbe(cacheDir, key, realBinary);
  return realBinary;
}

/**
 * What to bind for a binary outside the system folders: its install prefix
 * (`<prefix>/bin/<name>` → `<prefix>`), or the binary alone when the prefix
 * is, or holds, the home folder, the user space or the project (bound after
 * the project view, a prefix holding the project would lay the whole project
 * over its masks and write binds, and bring other projects in). A binary
 * inside the project gets nothing: the project view decides whether the tool
 * may see it.
 */
function mountsOf(binary: string, limits: ProgramLimits): string[] {
  if (SYSTEM_ROOTS.some((root) => binary.startsWith(root))) return [];
  if (inside(binary, limits.project)) return [];
  const dir = dirname(binary);
  const prefix = basename(dir) === 'bin' ? dirname(dir) : dir;
  const holds = (path: string | undefined): boolean =>
    path !== undefined && path !== '' && inside(path, prefix);
  return holds(limits.home) || holds(limits.userAi) || holds(limits.project) || prefix === sep
    ? [binary]
    : [prefix];
}

/** `path` is `folder` or below it. */
function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder + sep);
}

function readHead(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(256);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, n).toString('latin1');
  } finally {
    closeSync(fd);
  }
}

const CACHE_FILE = 'interpreters.json';

function cachedProbe(cacheDir: string, key: string): string | undefined {
  try {
    const table = JSON.parse(readFileSync(join(cacheDir, CACHE_FILE), 'utf8')) as Record<
      string,
      unknown
    >;
    const value = Object.hasOwn(table, key) ? table[key] : undefined;
    if (typeof value !== 'string' || !isAbsolute(value)) return undefined;
    statSync(value);
    return value;
  } catch {
    return undefined;
  }
}

function saveProbe(cacheDir: string, key: string, binary: string): void {
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const file = join(cacheDir, CACHE_FILE);
    let table: Record<string, unknown> = {};
    try {
      table = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      // none yet, or unreadable: start again
    }
    table[key] = binary;
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(table), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // A cache that cannot be written costs a probe next time, nothing more.
  }
}
