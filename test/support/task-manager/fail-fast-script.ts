/**
 * The worked example's fail_fast variant (THREADS.md §15 A, issue 17): wave 1's
 * `db_schema` child fails while its sibling `api_routes` is inside a tool that
 * would never end. Each child, as a model might, writes a probe app whose
 * `node --test` suite it runs through `test_runner {app}`: the sibling's test
 * writes its pid and hangs; the failing child's test waits for that pid file,
 * so the failure lands only once the sibling's process is running.
 */
import type { ScriptEntry, ScriptToolCall } from '../scripted-provider/index.js';
import { APP_NAME } from './example-paths.js';
import { orchestratorScript } from './orchestrator-script.js';
import { scaffoldScript, USAGE } from './scripts.js';

/** The hanging test's pid file, project-relative. */
export const SLOW_PID = 'probe-slow/slow.pid';

const DIR = `apps/${APP_NAME}`;
const tool = (item_id: string, parameters: Record<string, unknown>): ScriptToolCall => ({
  name: 'rye_execute',
  input: { item_type: 'tool', item_id, parameters },
});
const ret = (input: Record<string, unknown>): ScriptToolCall => ({
  name: 'directive_return',
  input,
});

const SLOW_TEST = `import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
test('hangs', () => {
  writeFileSync('slow.pid', String(process.pid));
  return new Promise(() => setInterval(() => {}, 1000));
});
`;
const WAIT_TEST = `import { existsSync } from 'node:fs';
import { test } from 'node:test';
test('waits for the sibling', async () => {
  const end = Date.now() + 60_000;
  while (!existsSync('../${SLOW_PID}') && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
});
`;

/** implement_feature for one plan: write a probe test, run it, then `last` (if any). */
function probeChild(planName: string, app: string, test: string, last: ScriptToolCall[]) {
  return {
    match: { directive: 'implement_feature', first_user_includes: `plan_${planName}.md` },
    turns: [
      {
        tool_calls: [
          tool('rye/file-system/fs_write', { path: `${app}/test/probe.test.js`, content: test }),
        ],
        usage: USAGE,
      },
      { tool_calls: [tool(`${DIR}/test_runner`, { app })], usage: USAGE },
      ...(last.length === 0 ? [] : [{ tool_calls: last, usage: USAGE }]),
    ],
  };
}

/** The orchestrator up to wave 1's wait, then a failure return; on resume, a failure again. */
export function failFastScripts(): ScriptEntry[] {
  const full = orchestratorScript();
  const failure = { tool_calls: [ret({ outcome: 'failure' })], usage: USAGE };
  return [
    { ...full, turns: [...full.turns.slice(0, 5), failure, failure] },
    scaffoldScript(),
    probeChild('db_schema', 'probe-wait', WAIT_TEST, [
      ret({ outcome: 'failure', failed_must_haves: '1' }),
    ]),
    probeChild('api_routes', 'probe-slow', SLOW_TEST, []),
  ];
}
