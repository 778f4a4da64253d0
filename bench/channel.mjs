// The operation channel (CONTAINMENT.md §1.7): the round trip of one `load` of
// a small knowledge item over fd 3, timed inside one sandboxed node tool run
// that makes 5 warm-up calls and 50 timed ones through '@rye/runtime' and
// reports its own timings. Run after `npm run build`.
import { operatorAuthority } from '../dist/src/capabilities/index.js';
import { executeTool, runOperation } from '../dist/src/ops/index.js';
import { signedSpaces } from './signed-spaces.mjs';
import { median, report } from './util.mjs';

const CALLS = 50;

const NOTE =
  '```yaml\nname: note\ntitle: A small note\nentry_type: reference\nversion: "1.0.0"\ncategory: bench\ntags: [bench]\n```\n\n# A small note\n\nA few words to load.\n';

const TOOL = `export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node_runtime";
export const __category__ = "bench";
export const __tool_description__ = "time loads over the channel";
export const __permissions__ = { "rye": ["rye.load.knowledge.bench/*"] };
import { performance } from 'node:perf_hooks';
import { respond, rye } from '@rye/runtime';
const input = { item_type: 'knowledge', item_id: 'bench/note' };
for (let i = 0; i < 5; i += 1) await rye.load(input);
const ms = [];
for (let i = 0; i < ${CALLS}; i += 1) {
  const start = performance.now();
  const answer = await rye.load(input);
  ms.push(performance.now() - start);
  if (answer.status !== 'success') { respond({ failed: answer }); process.exit(1); }
}
respond({ ms });
`;

export async function run() {
  const box = signedSpaces('channel', {
    'tools/bench/channel.mjs': TOOL,
    'knowledge/bench/note.md': NOTE,
  });
  try {
    const ctx = { spaces: box.spaces, env: box.env, authority: operatorAuthority() };
    const runs = [];
    for (let i = 0; i < 3; i += 1) {
      const result = await executeTool(ctx, 'bench/channel', {
        parameters: {},
        dryRun: false,
        nested: runOperation,
      });
      if (result.status !== 'success') throw new Error(JSON.stringify(result));
      runs.push(result);
    }
    const ms = runs.flatMap((r) => r.data.ms);
    report('channel.call_p50_ms', median(ms), 'ms', {
      calls: ms.length,
      sandbox: runs[0].metadata.sandbox,
      max_ms: Number(Math.max(...ms).toFixed(3)),
      goal: '<= 2 ms',
    });
  } finally {
    box.remove();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
