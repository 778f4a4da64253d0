/**
 * The orchestrator's (`build_crud_app`) script for the deterministic run
 * (THREADS.md §11, §15 A). It spawns children with
 * `rye_execute{item_type: "directive", thread: "spawn"}`, which answers the
 * model at once with `{status, item_id, thread_id, data: {thread_id,
 * caps_dropped, limits}}` (src/threads/tree/thread-links.ts), so the next turn
 * reads each child's id as `{{result[i].data.thread_id}}`; it then waits with
 * the `rye/agent/threads/wait_threads` tool `{thread_ids, fail_fast: true}`.
 */
import type { ScriptEntry, ScriptToolCall } from '../scripted-provider/index.js';
import { APP_NAME } from './example-paths.js';
import { readPlans, type Plan } from './plans.js';
import { USAGE } from './scripts.js';

export const ORCHESTRATOR_INPUTS = {
  name: APP_NAME,
  description: 'CRUD task manager with a node:http API, a JSON-file store and a static client',
  features: 'create tasks, mark complete, delete, filter by status',
};
const DIR = `apps/${APP_NAME}`;

/** `rye_execute` of a tool. */
export const tool = (item_id: string, parameters: Record<string, unknown>): ScriptToolCall => ({
  name: 'rye_execute',
  input: { item_type: 'tool', item_id, parameters },
});
/** An `implement_feature` child for `plan`, spawned (answered at once with its thread id). */
export const spawn = (plan: Plan): ScriptToolCall => ({
  name: 'rye_execute',
  input: {
    item_type: 'directive',
    item_id: `${DIR}/implement_feature`,
    inputs: { plan_path: plan.path, name: APP_NAME },
    thread: 'spawn',
  },
});
/** wait_threads on the threads the previous turn spawned (one per tool result). */
export const waitFor = (count: number): ScriptToolCall =>
  tool('rye/agent/threads/wait_threads', {
    thread_ids: Array.from({ length: count }, (_, i) =>
      i === 0 ? '{{result.data.thread_id}}' : `{{result[${i}].data.thread_id}}`,
    ),
    fail_fast: true,
  });

/** The orchestrator's turns: knowledge, plans (one fs_write), scaffold (wait), waves 1–3 (spawn + wait), tests, build, return. */
export function orchestratorScript(): ScriptEntry {
  const plans = readPlans();
  const wave = (n: number) => plans.filter((p) => p.wave === n);
  const turns = [
    {
      text: 'Loading the conventions.',
      tool_calls: ['react-patterns', 'api-design', 'db-schema'].map((k) => ({
        name: 'rye_load',
        input: { item_type: 'knowledge', item_id: `${DIR}/${k}` },
      })),
    },
    {
      text: 'Writing the four plans.',
      tool_calls: [
        tool('rye/file-system/fs_write', {
          files: plans.map((p) => ({ path: p.path, content: p.text })),
        }),
      ],
    },
    {
      tool_calls: [
        {
          name: 'rye_execute',
          input: {
            item_type: 'directive',
            item_id: `${DIR}/scaffold_project`,
            inputs: { name: APP_NAME, description: ORCHESTRATOR_INPUTS.description },
          },
        },
      ],
    },
    ...[1, 2, 3].flatMap((n) => [
      { text: `Wave ${n}.`, tool_calls: wave(n).map(spawn) },
      { tool_calls: [waitFor(wave(n).length)] },
    ]),
    { tool_calls: [tool(`${DIR}/test_runner`, { suite: 'all' })] },
    { tool_calls: [tool(`${DIR}/build`, { target: 'all' })] },
    { tool_calls: [{ name: 'directive_return', input: { outcome: 'success' } }] },
  ];
  return {
    match: { directive: 'build_crud_app' },
    turns: turns.map((t) => ({ ...t, usage: USAGE })),
  };
}
