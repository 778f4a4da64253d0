import { closeSync, fstatSync, writeSync } from 'node:fs';
import { IN_PROCESS_TOOLS } from '../../registry/in-process.js';
import { errorJson, isRyeError } from '../../errors/index.js';
import { redactTokens } from '../../capabilities/index.js';
import type { WorkerReport } from '../../threads/root/index.js';
import { commandAuthority } from '../authority.js';
import type { CommandContext } from '../context.js';

/**
 * `rye execute directive <id> --detached-worker` (started by spawnRootThread,
 * never by hand in practice): read the job on stdin, run the thread under this
 * process's authority narrowed to the job's capability strings (a job can
 * narrow, never widen: `RYE_CAP_TOKEN` still holds the process), report the
 * thread id on fd 3 once it is admitted, or the refusal when it is not, then
 * run the thread to its end. stdout and stderr are /dev/null; the transcript
 * is the record.
 */
export async function detachedWorkerCommand(
  ctx: CommandContext,
  directiveId: string,
): Promise<number> {
  const { MAX_WORKER_JOB_BYTES, WORKER_REPORT_FD, parseWorkerJob, runRootThread } =
    await import('../../threads/root/index.js');
  const { narrowAuthority, compileCaps, parseCapability } =
    await import('../../capabilities/index.js');
  const { readAllCapped } = await import('../stdin.js');
  let reported = false;
  const report = (value: WorkerReport) => {
    if (reported) return;
    reported = true;
    try {
      // Only a pipe from spawnRootThread: started by hand, fd 3 may be Node's own (epoll, eventfd).
      const fd = fstatSync(WORKER_REPORT_FD);
      if (!fd.isFIFO() && !fd.isSocket()) return;
      writeSync(WORKER_REPORT_FD, `${redactTokens(JSON.stringify(value))}\n`);
      closeSync(WORKER_REPORT_FD);
    } catch {
      // No parent listening: nothing to tell.
    }
  };
  try {
    const job = parseWorkerJob(await readAllCapped(process.stdin, MAX_WORKER_JOB_BYTES));
    const caps = compileCaps(job.caps.map((c) => parseCapability(c)));
    const authority = narrowAuthority(await commandAuthority(ctx, undefined), caps, 'ceiling');
    const result = await runRootThread(
      { spaces: ctx.spaces, env: ctx.io.env, authority, inProcessTools: IN_PROCESS_TOOLS },
      directiveId,
      job.inputs,
      { limits: job.limits, onAdmitted: (threadId) => report({ thread_id: threadId }) },
    );
    return result.status === 'completed' ? 0 : 1;
  } catch (error) {
    const e = isRyeError(error)
      ? errorJson(error.code, error.message, error.details)
      : errorJson('INTERNAL_ERROR', error instanceof Error ? error.message : String(error));
    report({ error: { code: e.code, message: e.message, details: e.details } });
    return 1;
  }
}
