// Issue 13 benchmarks: the directive parser (docs/directives.md), in process.
// `directive.parse_ms` is the median time to parse and check the seed's
// build_crud_app orchestrator (safe-xml parse, grammar, {input:x} scan).
// The hostile lines time the refusal of ~1 MB files aimed at the grammar's
// placeholder scan (the XML layer has its own line in parsers.mjs).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseDirectiveProgramSync as parseDirectiveProgram } from '../dist/src/items/directive/program.js';
import { interpolateProgram, resolveInputs } from '../dist/src/threads/directive/index.js';
import { median, report } from './util.mjs';

const ORCHESTRATOR = new URL(
  '../test/fixtures/seed-directives/apps/task-manager/build_crud_app.md',
  import.meta.url,
);
const SEED_INPUTS = {
  name: 'task-manager',
  description: 'CRUD task manager with React frontend, Express API, SQLite database',
  features: 'create tasks, mark complete, delete, filter by status',
};
const MB = 1024 * 1024;
const SAMPLES = 2000;
const HOSTILE_RUNS = 5;

/** Median of `samples` timings of `fn` (ms), after a warm-up. */
function timed(fn, samples) {
  for (let i = 0; i < 200; i += 1) fn();
  const times = [];
  for (let i = 0; i < samples; i += 1) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

function outcome(fn) {
  try {
    fn();
    return 'parsed';
  } catch (error) {
    return error?.code ?? 'thrown';
  }
}

/** A directive of about 1 MB: a small valid span, then `body` repeated as Markdown. */
function hostile(body) {
  const head = `# Hostile\n\n\`\`\`xml\n<directive name="hostile" version="1.0.0">\n<metadata><description>d</description></metadata>\n<inputs><input name="a" type="string" /></inputs>\n</directive>\n\`\`\`\n\n`;
  return head + body.repeat(Math.ceil((MB - head.length) / body.length));
}

const HOSTILE = [
  // Unknown references on one line: one issue per name, linear line counting.
  ['unknown_inputs', () => hostile('{input:b}')],
  // Malformed tokens: each scan is bounded, never to the end of the text.
  ['malformed_inputs', () => hostile('{input:')],
];

export async function run() {
  const text = readFileSync(ORCHESTRATOR, 'utf8');
  const program = parseDirectiveProgram(text, 'build_crud_app.md');
  report(
    'directive.parse_ms',
    timed(() => parseDirectiveProgram(text, 'build_crud_app.md'), SAMPLES),
    'ms',
    {
      bytes: Buffer.byteLength(text),
      goal: '< 1 ms',
    },
  );
  const inputs = resolveInputs(program.inputs, SEED_INPUTS);
  report(
    'directive.interpolate_ms',
    timed(() => interpolateProgram(program, inputs), SAMPLES),
    'ms',
  );
  for (const [name, make] of HOSTILE) {
    const input = make();
    const times = [];
    let seen;
    for (let i = 0; i < HOSTILE_RUNS; i += 1) {
      const start = performance.now();
      seen = outcome(() => parseDirectiveProgram(input, 'hostile.md'));
      times.push(performance.now() - start);
    }
    report(`directive.hostile_${name}_1mb_ms`, median(times), 'ms', {
      outcome: seen,
      goal: '< 500 ms',
    });
  }
}
