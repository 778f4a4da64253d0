import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ERROR_CODES, RyeError, isRyeError, type ErrorCode } from '../../errors/index.js';
import { packageRoot } from '../../platform/index.js';
import { capStrings } from '../../capabilities/index.js';
import type { OperationContext } from '../../ops/index.js';
import {
  WORKER_OPTION,
  WORKER_REPORT_FD,
  type WorkerJob,
  type WorkerReport,
} from './worker-job.js';

export interface SpawnRootOptions {
  readonly limits?: readonly string[];
  /** How long the worker may take to admit the thread (default 60 s). */
  readonly admitTimeoutMs?: number;
}

const REPORT_LIMIT = 64 * 1024;

/**
 * Start a directive as a root thread in a detached `rye` worker that owns its
 * tree and outlives the caller (THREADS.md §11, §13 "detached roots"), and
 * answer with the thread id once the worker has admitted it. The worker is
 * its own process group; its stdout and stderr go nowhere (never the MCP
 * protocol stream); the transcript is its log. It holds exactly
 * `ops.authority` (sent as capability strings on its stdin, intersected with
 * its own process authority), never more.
 *
 * A refusal before admission (capabilities, inputs, model, key) comes back
 * as the worker reported it; a worker that dies or stalls first is
 * THREAD_SPAWN_FAILED (and is killed). `ops.signal` aborts the wait.
 *
 * @throws RyeError THREAD_SPAWN_FAILED, or the worker's refusal
 */
export async function spawnRootThread(
  ops: OperationContext,
  directiveId: string,
  inputs: unknown,
  options: SpawnRootOptions = {},
): Promise<{ thread_id: string }> {
  ops.signal?.throwIfAborted();
  const job: WorkerJob = {
    v: 1,
    inputs,
    limits: [...(options.limits ?? [])],
    caps: [...capStrings(ops.authority.caps)],
  };
  const bin = join(packageRoot(), 'bin', 'rye.js');
  const args = [bin, 'execute', 'directive', directiveId, '--project', ops.spaces.project];
  const child = spawn(process.execPath, [...args, WORKER_OPTION], {
    cwd: ops.spaces.project,
    env: ops.env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore', 'pipe'],
  });
  const report = child.stdio[WORKER_REPORT_FD] as Readable;
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(JSON.stringify(job));
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  try {
    const line = await firstLine(child, report, ops.signal, options.admitTimeoutMs ?? 60_000);
    const answer = parseReport(line, directiveId);
    if ('thread_id' in answer) return answer;
    const code = Object.hasOwn(ERROR_CODES, answer.error.code)
      ? (answer.error.code as ErrorCode)
      : 'THREAD_SPAWN_FAILED';
    throw new RyeError(code, answer.error.message, detailsOf(answer));
  } catch (error) {
    killGroup();
    throw error;
  } finally {
    // Let go: the worker keeps running on its own.
    report.destroy();
    child.unref();
  }
}

function firstLine(
  child: ReturnType<typeof spawn>,
  report: Readable,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const fail = (why: string, extra: Record<string, unknown> = {}) =>
      done(() =>
        reject(
          new RyeError(
            'THREAD_SPAWN_FAILED',
            `Cannot spawn the thread: the detached worker ${why}`,
            extra,
          ),
        ),
      );
    const timer = setTimeout(() => fail(`did not admit it within ${timeoutMs} ms`), timeoutMs);
    const onAbort = () => fail('was cancelled by the caller', { reason: 'cancelled' });
    signal?.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    function done(then: () => void) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      then();
    }
    report.setEncoding('utf8');
    report.on('data', (chunk: string) => {
      text += chunk;
      const nl = text.indexOf('\n');
      if (nl !== -1) done(() => resolve(text.slice(0, nl)));
      else if (text.length > REPORT_LIMIT) fail('wrote an oversized report');
    });
    report.on('error', () => undefined);
    report.on('end', () => (text === '' ? undefined : done(() => resolve(text))));
    child.on('error', (error) => fail(`could not start (${error.message})`));
    child.on('exit', (code, sig) =>
      setImmediate(() =>
        fail(`exited (${sig ?? `code ${code}`}) before it admitted the thread`, {
          exit_code: code,
          signal: sig,
        }),
      ),
    );
  });
}

function parseReport(line: string, directiveId: string): WorkerReport {
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (typeof value['thread_id'] === 'string') return { thread_id: value['thread_id'] };
    const error = value['error'] as Record<string, unknown> | undefined;
    if (typeof error?.['code'] === 'string' && typeof error['message'] === 'string')
      return {
        error: { code: error['code'], message: error['message'], details: error['details'] },
      };
  } catch (error) {
    if (isRyeError(error)) throw error;
  }
  throw new RyeError(
    'THREAD_SPAWN_FAILED',
    `Cannot spawn directive ${directiveId}: the detached worker's report is not understood`,
    { report: line.slice(0, 200) },
  );
}

function detailsOf(answer: Extract<WorkerReport, { error: unknown }>): Record<string, unknown> {
  const d = answer.error.details;
  return typeof d === 'object' && d !== null ? (d as Record<string, unknown>) : {};
}
