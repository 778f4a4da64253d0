/**
 * The JSON contract (docs/json-output.md) for the commands the first walk
 * (json-output.test.ts) does not reach: a project's first steps (`init`,
 * `list`, `search`, `load`, `completion`), capability tokens (`cap`) and a
 * thread's life (`execute directive`, `thread …`), against a scripted
 * provider on loopback. Each document is one object with `ok` matching the
 * exit code and snake_case keys (`data`, `outputs` and `inputs` hold data).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { nonSnakeKeys } from '../helpers/json-keys.js';
import { EXECUTE, threadProject, type ThreadProject } from '../threads/loop/fixtures.js';

/**
 * JSON paths whose object keys are data: a tool's output, a directive's
 * inputs and outputs, and in `--plan`'s request the tools' JSON Schemas
 * (`minLength`, `additionalProperties`: that vocabulary's own names).
 */
const DATA_PATHS: readonly RegExp[] = [
  /\.(data|outputs|inputs|parameters|input)$/,
  /^\$\.plan\.tools\[\d+\]\.input_schema$/,
];

const badKeys = (value: unknown): string[] => nonSnakeKeys(value, DATA_PATHS);

let p: ThreadProject | undefined;
afterAll(async () => {
  await p?.server.close();
});

describe('the --json contract, for the first steps, tokens and threads', () => {
  it('every command prints one object with ok matching its exit code and snake_case keys', async () => {
    const answer = (text: string) => ({
      tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: text } }],
      usage: { in: 100, out: 10 },
    });
    // The run's turn, then the resumed conversation's.
    p = await threadProject([
      { match: { directive: 'summarise' }, turns: [answer('first'), answer('again')] },
    ]);
    const seen: { args: string; code: number; doc: Record<string, unknown> }[] = [];
    const run = async (args: string[], env?: NodeJS.ProcessEnv) => {
      const res = await p!.run([...args, '--json'], env);
      const doc = JSON.parse(res.stdout) as Record<string, unknown>;
      seen.push({ args: args.join(' '), code: res.code, doc });
      return doc;
    };

    const fresh = mkdtempSync(join(tmpdir(), 'rye-init-'));
    await run(['init', '--project', fresh]);
    await run(['list']);
    await run(['list', 'tool']);
    await run(['search', 'echo']);
    await run(['load', 'knowledge', 'notes/style']);
    await run(['load', 'knowledge', 'notes/nothing']);
    const minted = await run(['cap', 'mint', '--caps', 'rye.execute.tool.t/echo', '--ttl', '1h']);
    await run(['cap', 'revoke', String(minted['jti'])]);
    await run(['cap', 'revoke', 'not-a-jti']);

    await run([...EXECUTE, '--plan']);
    const done = await run([...EXECUTE]);
    const id = String(done['thread_id']);
    await run(['thread', 'list']);
    await run(['thread', 'show', id]);
    await run(['thread', 'verify', id]);
    await run(['thread', 'tree', id]);
    await run(['thread', 'cost', id]);
    // `thread tail --json` is the contract's other stream: JSONL, one verified event a line.
    const tail = await p.run(['thread', 'tail', id, '--json']);
    expect(tail.code).toBe(0);
    const events = tail.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(events.length).toBeGreaterThan(3);
    expect(events.flatMap((e) => badKeys(e))).toEqual([]);
    await run(['thread', 'wait', id]);
    await run(['thread', 'cancel', id]);
    await run(['thread', 'resume', id, '--message', 'once more']);
    await run(['thread', 'show', 'x-nothing']);

    const problems = seen.flatMap(({ args, code, doc }) => [
      ...(doc['ok'] === (code === 0) ? [] : [`${args}: ok ${String(doc['ok'])}, exit ${code}`]),
      ...badKeys(doc).map((k) => `${args}: key ${k}`),
    ]);
    expect(problems).toEqual([]);
    // Both outcomes were reached: the failures are exactly the ones provoked.
    expect(seen.filter((s) => s.code !== 0).map((s) => [s.args.split(' ')[0], s.code])).toEqual([
      ['load', 1],
      ['cap', 2],
      ['thread', 2],
    ]);
    expect(seen.length).toBeGreaterThanOrEqual(20);
    // `completion` takes no project: run it alone.
    const completion = await rye(['completion', 'bash', '--json']);
    expect(completion.code).toBe(0);
    const doc = JSON.parse(completion.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ ok: true, shell: 'bash' });
    expect(badKeys(doc)).toEqual([]);
  }, 120_000);
});
