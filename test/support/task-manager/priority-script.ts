/**
 * The orchestrator resumed with a feature request (THREADS.md §10, §15 A):
 * "Add a priority field to tasks…". A resumed thread sends the same system
 * prompt and first user message, so the scripted provider keeps it in the same
 * conversation and its cursor carries on past the first run's turns: the
 * continuation is the orchestrator entry's turns followed by these. Each turn
 * is what a model would do: write a fifth plan (phase 2), spawn one
 * `implement_feature` child for it (which writes the files of
 * `examples/task-manager/reference/priority/` and commits), wait, run the
 * tests, return.
 */
import { join } from 'node:path';
import type { ScriptEntry, ScriptReply } from '../scripted-provider/index.js';
import { APP_NAME, PRIORITY_DIR, PRIORITY_SOURCE } from './example-paths.js';
import { orchestratorScript, spawn, tool, waitFor } from './orchestrator-script.js';
import { readPlan, type Plan } from './plans.js';
import { buildAndServeScript, childScripts, implementScript, USAGE } from './scripts.js';

/** The message the orchestrator is resumed with. */
export const PRIORITY_MESSAGE =
  'Add a priority field to tasks (low, medium, high; default medium), through the API and the client.';

/** The fifth plan, written to phase 2 (phase 1's four are done). */
export function priorityPlan(): Plan {
  return readPlan(
    'add_priority',
    join(PRIORITY_DIR, 'plan_add_priority.md'),
    `.ai/plans/${APP_NAME}/phase_2/plan_add_priority.md`,
  );
}

/** The orchestrator's turns after the resume message. */
export function priorityTurns(): ScriptReply[] {
  const plan = priorityPlan();
  const turns: ScriptReply[] = [
    {
      text: 'Planning the priority field as phase 2.',
      tool_calls: [tool('rye/file-system/fs_write', { path: plan.path, content: plan.text })],
    },
    { tool_calls: [spawn(plan)] },
    { tool_calls: [waitFor(1)] },
    { tool_calls: [tool(`apps/${APP_NAME}/test_runner`, { suite: 'all' })] },
    { tool_calls: [{ name: 'directive_return', input: { outcome: 'success' } }] },
  ];
  return turns.map((t) => ({ ...t, usage: USAGE }));
}

/**
 * Every script of a run that builds the app, then resumes with the priority
 * feature: the orchestrator's entry carries on with {@link priorityTurns}, the
 * new plan's child has its entry, and `build_and_serve` (fired again by
 * `after_complete` when the resumed run completes, with the same inputs, so in
 * the same conversation) plays its turns a second time.
 */
export function priorityScripts(): ScriptEntry[] {
  const orchestrator = orchestratorScript();
  const serve = buildAndServeScript();
  return [
    { ...orchestrator, turns: [...orchestrator.turns, ...priorityTurns()] },
    implementScript(priorityPlan(), PRIORITY_SOURCE),
    { ...serve, turns: [...serve.turns, ...serve.turns] },
    ...childScripts(),
  ];
}
