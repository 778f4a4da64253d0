/**
 * The worked example's fail_fast variant (THREADS.md §15 A): a wave-1 child
 * fails, its sibling is cancelled with its tool's process tree, the
 * orchestrator gets both outcomes, ends in error, and resumes.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { processesUnder } from '../helpers/process-alive.js';
import { ORCHESTRATOR_INPUTS } from '../support/task-manager/orchestrator-script.js';
import { failFastScripts, SLOW_PID } from '../support/task-manager/fail-fast-script.js';
import { exampleRun, registryEdges, toolResults, type ExampleRun } from './support.js';

let open: ExampleRun | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe('build_crud_app when a wave-1 child fails', () => {
  it(
    'fail_fast cancels the sibling (no process left), returns both outcomes; the run ends in error and resumes',
    { timeout: 180_000 },
    async () => {
      const p = (open = await exampleRun(failFastScripts()));
      const res = await p.directive('build_crud_app', ORCHESTRATOR_INPUTS);
      expect(p.server.problems).toEqual([]);
      expect(res.code, res.stderr).toBe(1);
      expect(res.doc).toMatchObject({
        status: 'error',
        error: { code: 'THREAD_FAILED', details: { thread_status: 'failed' } },
        cost: { turns: 6 },
      });
      const root = res.doc.thread_id;

      // Scaffold and wave 1 only: no wave 2, and no after_complete hook on a failed run.
      const edges = registryEdges(p, root);
      expect(edges.map(([, kind]) => kind)).toEqual(['spawn', 'spawn', 'spawn']);
      const wait = toolResults(await p.events(root)).find(
        (r) => r.input?.item_id === 'rye/agent/threads/wait_threads',
      );
      type Entry = { thread_id: string; status: string; outputs?: object; error?: object };
      const threads = (wait?.output?.['threads'] ?? []) as Entry[];
      // Both wave-1 children, whichever was scheduled first (same millisecond, random ids).
      const waveIds = edges.slice(1).map(([id]) => id);
      expect(threads.map((t) => t.thread_id).sort()).toEqual([...waveIds].sort());
      const failed = threads.find((t) => t.status === 'failed');
      const cancelled = threads.find((t) => t.status !== 'failed');
      expect(failed).toMatchObject({ status: 'failed', outputs: { outcome: 'failure' } });
      expect(cancelled).toMatchObject({
        status: 'cancelled',
        error: { code: 'THREAD_CANCELLED', details: { reason: 'sibling_failed' } },
      });
      // The sibling's hanging test process (under test_runner's node --test) is gone.
      // It ran (it wrote its pid, one of its own PID namespace), and no process runs in the project now.
      expect(Number(readFileSync(join(p.project, SLOW_PID), 'utf8'))).toBeGreaterThan(0);
      expect(processesUnder(realpathSync(p.project))).toEqual([]);

      const cli = (...args: string[]) =>
        rye([...args, '--project', p.project, '--json'], { env: p.env });
      for (const [id] of [[root], ...edges]) {
        const verify = await cli('thread', 'verify', id as string);
        expect(verify.code, `${String(id)}: ${verify.stderr}`).toBe(0);
      }

      // Resumable: the same thread and transcript, its cost cumulative.
      const resumed = await cli('thread', 'resume', root, '--message', 'Wave 1 failed: report.');
      expect(resumed.code, resumed.stderr).toBe(1);
      expect(resumed.json()).toMatchObject({
        thread_id: root,
        status: 'failed',
        cost: { turns: 7 },
      });
      expect(p.server.problems).toEqual([]);
      const events = await p.events(root);
      // One transcript: created once, failed twice (the first run, then the resumed one).
      expect(events.filter((e) => e.type === 'thread_created')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'thread_failed')).toHaveLength(2);
    },
  );
});
