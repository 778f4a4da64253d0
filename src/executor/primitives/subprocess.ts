/**
 * The subprocess primitive: the leaf of every executor chain that runs a
 * process. argv goes to the kernel verbatim (never through a shell), output is
 * capped per stream, and a timeout kills the child's whole process group.
 *
 * POSIX only: process-group signalling (`kill(-pgid)`) has no Windows meaning.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { Duplex, Readable, type Writable } from 'node:stream';
import { statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { RyeError } from '../../errors/index.js';
import {
  devNullDescriptor,
  inheritableDescriptors,
  messageOf,
  monotonicMs,
  pause,
} from '../../platform/index.js';
import type { SubprocessRequest, SubprocessResult } from '../types.js';

/** Time between SIGTERM and SIGKILL to the process group after a timeout. */
export const KILL_GRACE_MS = 2_000;

/**
 * How long to keep reading after the child exits. Past it, the pipes are held
 * open by background grandchildren (`daemon &`), whose output is not ours to wait for.
 */
const EXIT_DRAIN_MS = 500;
/** Cap of what the child writes to its info descriptor. */
const MAX_INFO_BYTES = 64 * 1024;
const GROUP_POLL_MS = 50;

/**
 * Run one process and collect its result.
 *
 * Guarantees:
 * - `command` and `args` reach the process verbatim (`shell: false`): `; rm -rf ~`
 *   or `$(id)` stays one literal argument. A bare command is looked up on
 *   `request.env.PATH`, not on this process's PATH.
 * - Only `request.env` is passed; nothing is inherited from this process.
 * - stdin receives `request.stdin` then EOF; null gives the child /dev/null
 *   (`ignore`), so it can never read the caller's stdin (an MCP server's
 *   protocol stream). A child that does not read its stdin is not an error.
 * - Each stream keeps at most `maxOutputBytes` bytes (cut on a UTF-8 character
 *   boundary) then gets the line `[rye: <stream> truncated after N bytes]`; the
 *   pipes are still drained so the child never blocks on a full pipe.
 * - On timeout the child runs in its own process group, which receives SIGTERM,
 *   then SIGKILL after {@link KILL_GRACE_MS} if any member remains; the promise
 *   settles only once the group is empty or SIGKILL was sent. Aborting
 *   `request.signal` does the same and marks the result `cancelled`.
 * - On a normal exit background grandchildren are left alone (they keep running,
 *   and may get SIGPIPE if they write to the closed pipes).
 * - Non-zero exit, death by signal and timeout are results, not errors.
 *
 * @throws RyeError EXECUTOR_CONFIG_INVALID — missing/non-directory cwd, bad
 *   timeout or cap, or arguments Node refuses (NUL bytes, empty command).
 * @throws RyeError EXECUTE_ARGUMENTS_TOO_LARGE — an argument over Linux's 128 KiB
 *   limit (checked first), or the system refused the command line (E2BIG).
 * @throws RyeError EXECUTE_CANCELLED — the signal was already aborted: nothing is spawned.
 * @throws RyeError EXECUTE_COMMAND_NOT_FOUND — the command does not exist or
 *   is not executable (ENOENT, EACCES, ENOTDIR), or spawning failed otherwise.
 */
/** Process groups of the tools running now (each tool is a group leader). */
const runningGroups = new Set<number>();

/**
 * SIGKILL the process group of every tool still running. A tool runs in its
 * own group (so a timeout can kill its whole tree), which also means a Ctrl-C
 * on the terminal no longer reaches it: the CLI calls this from its signal
 * handlers so an interrupted `rye` leaves nothing behind.
 */
export function killRunningTools(): number {
  let killed = 0;
  for (const pgid of runningGroups) if (signalGroup(pgid, 'SIGKILL')) killed += 1;
  runningGroups.clear();
  return killed;
}

export async function runSubprocess(request: SubprocessRequest): Promise<SubprocessResult> {
  checkLimits(request);
  await checkCwd(request);
  if (request.signal?.aborted === true) throw cancelledBeforeSpawn(request);
  const started = monotonicMs();
  const child = spawnChild(request);
  const channel = child.stdio[3];
  if (request.channel !== undefined && channel instanceof Duplex) request.channel(channel);
  const pgid = child.pid;
  if (pgid !== undefined) runningGroups.add(pgid);
  const stdout = new CappedOutput('stdout', request.maxOutputBytes);
  const stderr = new CappedOutput('stderr', request.maxOutputBytes);
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const info = request.infoFd === undefined ? undefined : new CappedOutput('info', MAX_INFO_BYTES);
  const infoPipe = request.infoFd === undefined ? null : child.stdio[request.infoFd];
  if (info !== undefined && infoPipe instanceof Readable)
    infoPipe.on('data', (chunk: Buffer) => info.push(chunk)).on('error', () => undefined);
  if (child.stdin !== null) {
    // EPIPE when the child exits without reading stdin: the child's result tells the story.
    child.stdin.on('error', () => undefined);
    child.stdin.end(request.stdin);
  }

  let timedOut = false;
  let cancelled = false;
  let termination: Promise<void> = Promise.resolve();
  const stop = (): void => {
    if (child.pid !== undefined && !timedOut && !cancelled) termination = terminateGroup(child.pid);
  };
  const timer = setTimeout(() => {
    stop();
    timedOut = true;
  }, request.timeoutMs);
  const onAbort = (): void => {
    stop();
    cancelled = true;
  };
  request.signal?.addEventListener('abort', onAbort, { once: true });
  // Once the child itself has exited, the clock stops: grandchildren are not timed.
  child.once('exit', () => {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
  });
  let exit: ExitStatus;
  try {
    exit = await waitForExit(child, request);
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
    if (pgid !== undefined) runningGroups.delete(pgid);
  }
  await termination;
  if (infoPipe instanceof Readable) infoPipe.destroy();
  return {
    ...(info === undefined ? {} : { info: info.text() }),
    stdout: stdout.text(),
    stderr: stderr.text(),
    returnCode: exit.code,
    signal: exit.signal,
    timedOut,
    cancelled,
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
    durationMs: monotonicMs() - started,
  };
}

interface ExitStatus {
  readonly code: number | null;
  readonly signal: string | null;
}

/**
 * Linux's limit on one argument, its NUL included (MAX_ARG_STRLEN, 32 pages):
 * a tool's parameters travel as one argument.
 */
const MAX_LINUX_ARGUMENT_BYTES = 128 * 1024;

function checkLimits(request: SubprocessRequest): void {
  const { timeoutMs, maxOutputBytes } = request;
  if (process.platform === 'linux') {
    for (const arg of [request.command, ...request.args]) {
      const bytes = Buffer.byteLength(arg, 'utf8') + 1;
      if (bytes > MAX_LINUX_ARGUMENT_BYTES) throw argumentsTooLarge(request, bytes);
    }
  }
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw configInvalid(request, `timeout must be a positive number of ms, got ${timeoutMs}`);
  }
  if (!(Number.isSafeInteger(maxOutputBytes) && maxOutputBytes >= 0)) {
    throw configInvalid(request, `output cap must be a byte count, got ${maxOutputBytes}`);
  }
}

// Node reports a missing cwd as ENOENT, exactly like a missing command: check it first.
async function checkCwd(request: SubprocessRequest): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(request.cwd).isDirectory();
  } catch (error) {
    throw configInvalid(request, `working directory ${request.cwd} does not exist`, error);
  }
  if (!isDirectory) {
    throw configInvalid(request, `working directory ${request.cwd} is not a directory`);
  }
}

type Child = ChildProcessByStdio<Writable | null, Readable, Readable>;

function spawnChild(request: SubprocessRequest): Child {
  try {
    return spawn(request.command, [...request.args], {
      cwd: request.cwd,
      env: { ...request.env },
      shell: false,
      // Its own process group, so a timeout can kill grandchildren too.
      detached: true,
      stdio: stdioOf(request),
    }) as Child;
  } catch (error) {
    // The system refused the command line and environment as too large.
    if ((error as NodeJS.ErrnoException).code === 'E2BIG') throw argumentsTooLarge(request);
    // Other synchronous refusals are argument validation (NUL bytes, empty command…).
    throw configInvalid(request, messageOf(error), error);
  }
}

type StdioEntry = 'ignore' | 'pipe' | number;

/**
 * The child's descriptors: stdin, stdout and stderr; fd 3, when asked for, a
 * socket pair (the operation channel). Every descriptor this process
 * inherited without close-on-exec would pass through to the child (and
 * through bwrap into a sandbox): each is replaced by /dev/null in the child.
 */
function stdioOf(request: SubprocessRequest): StdioEntry[] {
  const stdio: StdioEntry[] = [request.stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'];
  if (request.channel !== undefined) stdio.push('pipe');
  if (request.infoFd !== undefined) {
    while (stdio.length < request.infoFd) stdio.push('ignore');
    stdio[request.infoFd] = 'pipe';
  }
  const inherited = inheritableDescriptors();
  if (inherited.length === 0) return stdio;
  const devNull = devNullDescriptor();
  for (const fd of inherited) {
    if (fd < stdio.length) continue;
    while (stdio.length < fd) stdio.push('ignore');
    stdio.push(devNull);
  }
  return stdio;
}

function argumentsTooLarge(request: SubprocessRequest, bytes?: number): RyeError {
  const why =
    bytes === undefined
      ? 'its arguments and environment are over the system limit (E2BIG)'
      : `one of its arguments is ${bytes} bytes, over the system limit of ${MAX_LINUX_ARGUMENT_BYTES} per argument (a tool's parameters are one argument)`;
  return new RyeError('EXECUTE_ARGUMENTS_TOO_LARGE', `Cannot run ${request.command}: ${why}`, {
    command: request.command,
    ...(bytes === undefined ? {} : { bytes, maxBytes: MAX_LINUX_ARGUMENT_BYTES }),
  });
}

function waitForExit(child: Child, request: SubprocessRequest): Promise<ExitStatus> {
  return new Promise((resolve, reject) => {
    let drain: NodeJS.Timeout | undefined;
    const finish = (code: number | null, signal: string | null): void => {
      clearTimeout(drain);
      resolve({ code, signal });
    };
    child.once('error', (error) => reject(commandNotFound(request, error)));
    child.once('close', finish);
    child.once('exit', (code, signal) => {
      drain = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signal);
      }, request.exitDrainMs ?? EXIT_DRAIN_MS);
    });
  });
}

/** SIGTERM the group; SIGKILL it after the grace if any member is left. */
async function terminateGroup(pgid: number): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  const deadline = monotonicMs() + KILL_GRACE_MS;
  while (monotonicMs() < deadline) {
    // A pgid is not reused while any member (even a zombie) holds it, so polling is safe.
    if (!signalGroup(pgid, 0)) return;
    await pause(GROUP_POLL_MS);
  }
  signalGroup(pgid, 'SIGKILL');
}

/** Returns false when the group no longer exists (EPERM means it does). */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Keeps the first `cap` bytes of a stream and counts the rest. */
class CappedOutput {
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  truncated = false;

  constructor(
    private readonly name: 'stdout' | 'stderr' | 'info',
    private readonly cap: number,
  ) {}

  push(chunk: Buffer): void {
    const room = this.cap - this.#kept;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#chunks.push(kept);
    this.#kept += kept.length;
  }

  text(): string {
    const bytes = Buffer.concat(this.#chunks);
    const decoder = new StringDecoder('utf8');
    if (!this.truncated) return decoder.end(bytes);
    // write() without end() holds back an incomplete trailing character: a clean cut.
    return `${decoder.write(bytes)}\n[rye: ${this.name} truncated after ${this.cap} bytes]`;
  }
}

function configInvalid(request: SubprocessRequest, why: string, cause?: unknown): RyeError {
  return new RyeError(
    'EXECUTOR_CONFIG_INVALID',
    `Cannot run ${request.command}: ${why}`,
    { command: request.command, cwd: request.cwd },
    { cause },
  );
}

function cancelledBeforeSpawn(request: SubprocessRequest): RyeError {
  return new RyeError(
    'EXECUTE_CANCELLED',
    `Not running ${request.command}: the call was cancelled`,
    {
      command: request.command,
    },
  );
}

function commandNotFound(request: SubprocessRequest, error: Error): RyeError {
  const errno = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
  const why =
    errno === 'ENOENT' || errno === 'ENOTDIR'
      ? 'command not found'
      : errno === 'EACCES'
        ? 'command is not executable'
        : `spawn failed (${messageOf(error)})`;
  return new RyeError(
    'EXECUTE_COMMAND_NOT_FOUND',
    `Cannot run ${request.command}: ${why}`,
    { command: request.command, cwd: request.cwd, errno },
    { cause: error },
  );
}
