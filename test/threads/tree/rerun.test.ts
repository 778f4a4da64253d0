/**
 * THREADS.md §15: every transcript is byte-identical across runs when the
 * clock and the ids are injected. A tree (a root spawning two children, one
 * wave, waiting for them, then resumed once) runs twice in the same project,
 * the second time after its threads were removed and the provider's script
 * rewound; every file of every thread must come back byte for byte.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execute } from '../../../src/executor/index.js';
import { fixedClock, type RandomSource } from '../../../src/ids/index.js';
import { verifiedEvents } from '../loop/fixtures.js';
import {
  directive,
  execDirective,
  execTool,
  returns,
  treeProject,
  type TreeProject,
} from './fixtures.js';

let open: TreeProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

const ORCHESTRATOR = directive({
  name: 'orchestrate',
  input: 'goal',
  limits: 'max_turns="8" max_spend="20.00" max_spawns="4"',
  permissions: `      <execute>
        <directive>demo.worker</directive>
        <tool>t.echo</tool>
      </execute>`,
});

const WORKER = directive({
  name: 'worker',
  limits: 'max_turns="4" max_spend="5.00"',
  permissions: `      <execute>
        <tool>t.echo</tool>
      </execute>`,
});

/** One spawn per turn: the order the ids are drawn in is the script's, not the scheduler's. */
const SCRIPT = [
  {
    match: { directive: 'orchestrate' },
    turns: [
      {
        tool_calls: [execDirective('demo/worker', { part: 'a' }, 'spawn')],
        usage: { in: 200, out: 20 },
      },
      {
        tool_calls: [execDirective('demo/worker', { part: 'b' }, 'spawn')],
        usage: { in: 250, out: 20 },
      },
      {
        tool_calls: [
          execTool('rye/agent/threads/wait_threads', {
            thread_ids: ['$spawned:0', '$spawned:1'],
            fail_fast: true,
          }),
        ],
        usage: { in: 300, out: 20 },
      },
      returns('both done'),
      returns('resumed'),
    ],
  },
  ...['a', 'b'].map((part) => ({
    match: { directive: 'worker', first_user_includes: `"part": "${part}"` },
    turns: [
      { tool_calls: [execTool('t/echo', { part })], usage: { in: 50, out: 5 } },
      returns(`did ${part}`),
    ],
  })),
];

/** Reproducible bytes: SHA-256 of a counter, as many blocks as asked for. */
function seededRandom(seed: string): RandomSource {
  let counter = 0;
  return (n) => {
    const out = new Uint8Array(n);
    for (let filled = 0; filled < n; filled += 32) {
      counter += 1;
      out.set(
        createHash('sha256')
          .update(`${seed}:${counter}`)
          .digest()
          .subarray(0, n - filled),
        filled,
      );
    }
    return out;
  };
}

/** Every file under `.ai/threads/<id>/`, by path, but the SQLite registry and the tree locks. */
function threadFiles(p: TreeProject): Map<string, Buffer> {
  const root = join(p.project, '.ai', 'threads');
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const name = relative(root, path);
    if (!name.includes('/')) continue; // registry.db and its journal, beside the thread folders
    if (entry.name.startsWith('.tree.lock')) continue;
    files.set(name, readFileSync(path));
  }
  return files;
}

async function runOnce(p: TreeProject) {
  const clock = fixedClock(Date.UTC(2026, 10, 1, 12));
  const random = seededRandom('rerun');
  const result = await p.run('demo/orchestrate', { goal: 'g' }, undefined, { clock, random });
  expect(result.status, JSON.stringify(result.error)).toBe('completed');
  // A resume mints a new token (a new jti) and appends to the same transcript.
  clock.advance(60_000);
  const resumed = await p.resume(result.thread_id, 'once more', { clock, random });
  expect(resumed.status, JSON.stringify(resumed.error)).toBe('completed');
  return { result, resumed, files: threadFiles(p) };
}

describe('a rerun with the same clock and ids', () => {
  it('writes every transcript and record of the tree byte for byte again', async () => {
    const p = (open = await treeProject(
      { 'demo/orchestrate': ORCHESTRATOR, 'demo/worker': WORKER },
      SCRIPT,
    ));
    // t/echo's lockfile is pinned first: two children running it at once would
    // otherwise race to pin it, and the one that wins reports lockfile_created.
    const pinned = await execute({ spaces: p.spaces, toolId: 't/echo', params: {}, env: p.env });
    expect(pinned.metadata).toMatchObject({ lockfile_created: true });
    const first = await runOnce(p);
    const transcripts = [...first.files.keys()].filter((f) => f.endsWith('transcript.jsonl'));
    expect(transcripts).toHaveLength(3);
    for (const file of transcripts) await verifiedEvents(p, file.split('/')[0] as string);

    rmSync(join(p.project, '.ai', 'threads'), { recursive: true });
    p.server.rewind();
    const second = await runOnce(p);

    expect(second.result).toEqual(first.result);
    expect(second.resumed).toEqual(first.resumed);
    expect([...second.files.keys()].sort()).toEqual([...first.files.keys()].sort());
    for (const [name, bytes] of first.files)
      expect(second.files.get(name)?.toString('utf8'), name).toBe(bytes.toString('utf8'));
  });
});
