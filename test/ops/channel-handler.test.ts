import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  narrowAuthority,
  operatorAuthority,
  parseCapability,
  type Authority,
} from '../../src/capabilities/index.js';
import {
  MAX_CHANNEL_DEPTH,
  capsOfToolPatterns,
  channelHandler,
} from '../../src/ops/channel-handler.js';
import { executeTool, runOperation, type OperationContext } from '../../src/ops/index.js';
import { THREADS_PORT } from '../../src/threads/root/index.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';

/*
 * The operation channel end to end (CONTAINMENT.md §1.7): signed tools in the
 * real bwrap sandbox, holding no token, reach rye on fd 3; each request is
 * answered under the caller's authority narrowed to the tool's `rye:`.
 */

const NOTE =
  '```yaml\nname: hello\ntitle: Hello\nentry_type: reference\nversion: "1.0.0"\ncategory: notes\ntags: [test]\n```\n\n# Hello\n\nThe note body.\n';

/** A node tool that runs the requests it is given and reports what it saw. */
const nodeTool = (permissions: string): string => `export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node_runtime";
export const __category__ = "ch";
export const __tool_description__ = "channel test tool";
${permissions}
import { readlinkSync } from 'node:fs';
import { readParams, respond, rye } from '@rye/runtime';
const { requests = [], parallel = false } = readParams();
const ask = (r) => rye[r.op](r.input).catch((error) => ({ thrown: error.message }));
const answers = [];
if (parallel) answers.push(...(await Promise.all(requests.map(ask))));
else for (const r of requests) answers.push(await ask(r));
// Node opens descriptors of its own (epoll, eventfd): what matters is whether fd 3 is a socket.
let fd3 = null;
try { fd3 = readlinkSync('/proc/self/fd/3'); } catch { fd3 = null; }
respond({ answers, env: Object.keys(process.env).sort(), fd3 });
`;

const PY_TOOL = `import json
import os
import sys

import rye_channel

__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "py/chan"
__tool_description__ = "channel test tool"
__permissions__ = {"rye": ["rye.load.knowledge.*"], "env": ["RYE_CAP_TOKEN"]}

params = json.loads(sys.argv[sys.argv.index("--params") + 1])
answers = [getattr(rye_channel, r["op"])(r["input"]) for r in params["requests"]]
print(json.dumps({"answers": answers, "env": sorted(os.environ)}))
`;

const LOAD_NOTE = { op: 'load', input: { item_type: 'knowledge', item_id: 'notes/hello' } };

async function project(): Promise<ExecProject> {
  const p = await makeExecProject();
  p.write('.ai/knowledge/notes/hello.md', NOTE);
  p.write(
    '.ai/knowledge/private/secret.md',
    NOTE.replace('name: hello', 'name: secret').replace('category: notes', 'category: private'),
  );
  await p.sign('knowledge', '**');
  return p;
}

function context(p: ExecProject, authority: Authority = operatorAuthority()): OperationContext {
  return {
    spaces: p.spaces,
    env: { ...p.env, RYE_CAP_TOKEN: 'rye_cap_secret' },
    authority,
    threads: THREADS_PORT,
  };
}

interface Report {
  readonly answers: readonly Record<string, unknown>[];
  readonly env: readonly string[];
  readonly fd3?: string | null;
}

async function run(
  ctx: OperationContext,
  toolId: string,
  requests: unknown[],
  parallel = false,
): Promise<Report> {
  const parameters = { requests, parallel };
  const result = await executeTool(ctx, toolId, {
    parameters,
    dryRun: false,
    nested: runOperation,
  });
  expect(result.status, JSON.stringify(result)).toBe('success');
  expect(result.metadata.sandbox).toBe('bwrap');
  return result.data as Report;
}

describe('the operation channel, end to end in the sandbox', () => {
  it('a node tool declaring rye.load.knowledge.* loads a knowledge item, with no token in its env', async () => {
    const p = await project();
    p.write(
      '.ai/tools/ch/node.mjs',
      nodeTool('export const __permissions__ = { "rye": ["rye.load.knowledge.*"] };'),
    );
    await p.sign('tool', 'ch/node');
    const report = await run(context(p), 'ch/node', [LOAD_NOTE, LOAD_NOTE]);
    expect(report.answers).toHaveLength(2);
    expect(report.answers[0]).toMatchObject({
      status: 'success',
      item_id: 'notes/hello',
      data: { item_type: 'knowledge', item_id: 'notes/hello', verdict: 'ok' },
    });
    expect(JSON.stringify(report.answers[0])).toContain('The note body.');
    expect(report.answers[0]).not.toHaveProperty('id');
    expect(report.env).toContain('RYE_CHANNEL_FD');
    expect(report.env).not.toContain('RYE_CAP_TOKEN');
    expect(report.fd3).toMatch(/^socket:/);
    // Calls in flight together are matched to their answers by id.
    const search = { op: 'search', input: { query: 'hello' } };
    const together = await run(context(p), 'ch/node', [LOAD_NOTE, search, LOAD_NOTE], true);
    expect(together.answers.map((a) => a['status'])).toEqual(['success', 'success', 'success']);
    expect(together.answers[1]).toMatchObject({ data: { results: [] } });
  });

  it('refuses a request outside the tool’s rye: set, and returns nothing of the item', async () => {
    const p = await project();
    p.write(
      '.ai/tools/ch/node.mjs',
      nodeTool('export const __permissions__ = { "rye": ["rye.load.knowledge.notes/*"] };'),
    );
    await p.sign('tool', 'ch/node');
    const report = await run(context(p), 'ch/node', [
      { op: 'load', input: { item_type: 'knowledge', item_id: 'private/secret' } },
      { op: 'load', input: { item_type: 'tool', item_id: 'ch/node' } },
      { op: 'search', input: { query: 'hello secret' } },
      LOAD_NOTE,
    ]);
    const [secret, tool, search, note] = report.answers;
    expect(secret).toMatchObject({
      status: 'error',
      item_id: 'private/secret',
      error: { code: 'CAPABILITY_DENIED' },
    });
    expect(JSON.stringify(secret)).not.toContain('The note body.');
    expect(tool).toMatchObject({ status: 'error', error: { code: 'CAPABILITY_DENIED' } });
    // search needs rye.search.*: the set holds none, so nothing is found.
    expect(search).toMatchObject({ status: 'success', data: { results: [] } });
    expect(note).toMatchObject({ status: 'success', item_id: 'notes/hello' });
  });

  it('refuses a request the tool declares but the caller’s authority does not hold', async () => {
    const p = await project();
    p.write(
      '.ai/tools/ch/node.mjs',
      nodeTool('export const __permissions__ = { "rye": ["rye.load.knowledge.*"] };'),
    );
    await p.sign('tool', 'ch/node');
    const caller = narrowAuthority(operatorAuthority(), [
      parseCapability('rye.execute.tool.ch/*'),
      parseCapability('rye.load.knowledge.notes/*'),
    ]);
    const report = await run(context(p, caller), 'ch/node', [
      { op: 'load', input: { item_type: 'knowledge', item_id: 'private/secret' } },
      LOAD_NOTE,
    ]);
    expect(report.answers[0]).toMatchObject({
      status: 'error',
      error: { code: 'CAPABILITY_DENIED' },
    });
    expect(JSON.stringify(report.answers[0])).not.toContain('The note body.');
    expect(report.answers[1]).toMatchObject({ status: 'success', item_id: 'notes/hello' });
  });

  it('refuses to execute a directive (THREAD_NESTED_DIRECTIVE), whatever the sets hold', async () => {
    const p = await project();
    p.write(
      '.ai/tools/ch/node.mjs',
      nodeTool('export const __permissions__ = { "rye": ["rye.*"] };'),
    );
    await p.sign('tool', 'ch/node');
    const report = await run(context(p), 'ch/node', [
      { op: 'execute', input: { item_type: 'directive', item_id: 'any/thing' } },
      { op: 'execute', input: { item_type: 'directive', item_id: 'any/thing', dry_run: true } },
    ]);
    for (const answer of report.answers)
      expect(answer).toMatchObject({
        status: 'error',
        item_id: 'any/thing',
        error: { code: 'THREAD_NESTED_DIRECTIVE' },
      });
  });

  it('executes a tool through the channel when both sets allow it', async () => {
    const p = await project();
    p.write(
      '.ai/tools/ch/node.mjs',
      nodeTool('export const __permissions__ = { "rye": ["rye.execute.tool.ch.inner"] };'),
    );
    p.write(
      '.ai/tools/ch/inner.mjs',
      `export const __version__ = "1.0.0";\nexport const __tool_type__ = "javascript";\nexport const __executor_id__ = "rye/core/runtimes/node_runtime";\nexport const __category__ = "ch";\nexport const __tool_description__ = "inner";\nimport { readParams, respond } from '@rye/runtime';\nrespond({ inner: readParams().n * 2 });\n`,
    );
    await p.sign('tool', 'ch/*');
    const execute = (id: string) => ({
      op: 'execute',
      input: { item_type: 'tool', item_id: id, parameters: { n: 21 } },
    });
    const report = await run(context(p), 'ch/node', [execute('ch/inner'), execute('ch/node')]);
    expect(report.answers[0]).toMatchObject({
      status: 'success',
      item_id: 'ch/inner',
      data: { inner: 42 },
    });
    expect(report.answers[1]).toMatchObject({
      status: 'error',
      error: { code: 'CAPABILITY_DENIED' },
    });
  });

  it('signs through the channel only with rye.sign.* in the tool’s set and the caller’s', async () => {
    const p = await project();
    p.write(
      '.ai/tools/ch/signer.mjs',
      nodeTool('export const __permissions__ = { "rye": ["rye.sign.knowledge.notes/*"] };'),
    );
    p.write(
      '.ai/tools/ch/wide.mjs',
      nodeTool('export const __permissions__ = { "rye": ["rye.*"] };'),
    );
    await p.sign('tool', 'ch/*');
    const sign = { op: 'sign', input: { item_type: 'knowledge', item_id: 'notes/hello' } };
    // rye.* never stands for sign.
    const wide = await run(context(p), 'ch/wide', [sign]);
    expect(wide.answers[0]).toMatchObject({
      status: 'error',
      error: { code: 'CAPABILITY_DENIED' },
    });
    const noSign = narrowAuthority(operatorAuthority(), [
      parseCapability('rye.execute.tool.ch/*'),
      parseCapability('rye.load.knowledge.*'),
    ]);
    const refused = await run(context(p, noSign), 'ch/signer', [sign]);
    expect(refused.answers[0]).toMatchObject({
      status: 'error',
      error: { code: 'CAPABILITY_DENIED' },
    });
    const signed = await run(context(p), 'ch/signer', [sign]);
    expect(signed.answers[0]).toMatchObject({
      status: 'success',
      item_id: 'notes/hello',
      data: { ok: true, summary: { signed: 1, failed: 0 } },
    });
  });

  it('a tool with no rye: permission gets no fd 3 and no RYE_CHANNEL_FD', async () => {
    const p = await project();
    p.write('.ai/tools/ch/plain.mjs', nodeTool(''));
    await p.sign('tool', 'ch/plain');
    const report = await run(context(p), 'ch/plain', [LOAD_NOTE]);
    expect(report.fd3 ?? '').not.toMatch(/^socket:/);
    expect(report.env).not.toContain('RYE_CHANNEL_FD');
    expect(report.env).not.toContain('RYE_CAP_TOKEN');
    expect(report.answers[0]?.['thrown']).toMatch(/RYE_CHANNEL_FD is not set.*declares no rye:/);
  });

  it('a python tool (a package, so rye_channel is on PYTHONPATH) loads through the channel', async () => {
    const p = await project();
    p.write('.ai/tools/py/chan/__init__.py', '');
    p.write('.ai/tools/py/chan/load_note.py', PY_TOOL);
    await p.sign('tool', 'py/chan/**');
    const report = await run(context(p), 'py/chan/load_note', [
      LOAD_NOTE,
      { op: 'load', input: { item_type: 'tool', item_id: 'py/chan/load_note' } },
      { op: 'execute', input: { item_type: 'directive', item_id: 'x/y' } },
    ]);
    expect(report.answers[0]).toMatchObject({ status: 'success', item_id: 'notes/hello' });
    expect(JSON.stringify(report.answers[0])).toContain('The note body.');
    expect(report.answers[1]).toMatchObject({ error: { code: 'CAPABILITY_DENIED' } });
    expect(report.answers[2]).toMatchObject({ error: { code: 'THREAD_NESTED_DIRECTIVE' } });
    // Declared, yet never passed: the token is a secret.
    expect(report.env).not.toContain('RYE_CAP_TOKEN');
    expect(report.env).toContain('RYE_CHANNEL_FD');
  });

  it('the shell example loads a knowledge item with printf and read on fd 3', async () => {
    const p = await project();
    const example = fileURLToPath(
      new URL(
        '../../examples/channel/.ai/tools/examples/channel/load_knowledge.sh',
        import.meta.url,
      ),
    );
    p.write('.ai/tools/examples/channel/load_knowledge.sh', readFileSync(example));
    await p.sign('tool', 'examples/channel/load_knowledge');
    const ok = await executeTool(context(p), 'examples/channel/load_knowledge', {
      parameters: { item_id: 'notes/hello' },
      nested: runOperation,
      dryRun: false,
    });
    expect(ok).toMatchObject({
      status: 'success',
      data: { success: true, answer: { id: 1, status: 'success', item_id: 'notes/hello' } },
    });
    expect(JSON.stringify(ok.data)).toContain('The note body.');
    const narrowed = narrowAuthority(operatorAuthority(), [
      parseCapability('rye.execute.tool.examples/*'),
      parseCapability('rye.load.knowledge.notes/*'),
    ]);
    const denied = await executeTool(context(p, narrowed), 'examples/channel/load_knowledge', {
      parameters: { item_id: 'private/secret' },
      nested: runOperation,
      dryRun: false,
    });
    expect(denied).toMatchObject({
      status: 'success',
      data: { answer: { status: 'error', error: { code: 'CAPABILITY_DENIED' } } },
    });
  });
});

describe('capsOfToolPatterns()', () => {
  const strings = (patterns: string[]) =>
    capsOfToolPatterns(patterns).map((c) => `${c.verb}.${c.type}.${c.pattern}`);

  it('reads ids with slashes or dots, and * (or nothing) for a verb, a type or an id', () => {
    expect(strings(['rye.execute.tool.rye/file-system/*'])).toEqual([
      'execute.tool.rye/file-system/*',
    ]);
    expect(strings(['rye.execute.tool.rye.file-system.*'])).toEqual([
      'execute.tool.rye/file-system/*',
    ]);
    expect(strings(['rye.load.knowledge.*'])).toEqual(['load.knowledge.*']);
    expect(strings(['rye.search']).sort()).toEqual([
      'search.directive.*',
      'search.knowledge.*',
      'search.tool.*',
    ]);
    expect(strings(['rye.sign.*']).sort()).toEqual([
      'sign.directive.*',
      'sign.knowledge.*',
      'sign.tool.*',
    ]);
  });

  it('never reads sign into a * verb, and grants nothing for a pattern that does not parse', () => {
    expect(strings(['rye.*']).some((s) => s.startsWith('sign.'))).toBe(false);
    expect(strings(['rye.*'])).toContain('execute.tool.*');
    expect(strings(['rye.load.knowledge.a/*/b', 'rye.bogus.tool.x', 'rye.load.thing.x'])).toEqual(
      [],
    );
    expect(strings(['rye.load.knowledge.{input:x}', 'ryeload'])).toEqual([]);
  });
});

describe('channelHandler()', () => {
  it('inside a thread, a thread tool still needs its grant in the tool’s set (no implicit grant)', async () => {
    const p = await project();
    const handler = channelHandler({ ...context(p), thread: 'T-parent' }, runOperation);
    const cancel = {
      op: 'execute' as const,
      input: { item_type: 'tool', item_id: 'rye/agent/threads/cancel_thread', parameters: {} },
    };
    expect(await handler(cancel, ['rye.load.knowledge.*'])).toMatchObject({
      status: 'error',
      item_id: 'rye/agent/threads/cancel_thread',
      error: { code: 'CAPABILITY_DENIED' },
    });
  });

  it('answers a bad input with the operation’s own refusal, never a throw', async () => {
    const p = await project();
    const handler = channelHandler(context(p), runOperation);
    expect(await handler({ op: 'load', input: 'notes/hello' }, ['rye.*'])).toMatchObject({
      status: 'error',
      error: { code: 'OPERATION_INPUT_INVALID' },
    });
    expect(
      await handler({ op: 'load', input: { item_type: 'knowledge', item_id: 'notes/hello' } }, []),
    ).toMatchObject({ status: 'error', error: { code: 'CAPABILITY_DENIED' } });
  });

  it('refuses an execute deeper than MAX_CHANNEL_DEPTH tools running tools, and runs nothing', async () => {
    const p = await project();
    // In the project and declared: had it run in its sandbox, it would have marked.
    const marker = join(p.project, 'markers', 'deep-marker');
    p.write(
      '.ai/tools/ch/deep.mjs',
      nodeTool('export const __permissions__ = { write: ["markers"] };').replace(
        'const { requests',
        `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nconst { requests`,
      ),
    );
    await p.sign('tool', 'ch/**');
    const handler = channelHandler(
      { ...context(p), channelDepth: MAX_CHANNEL_DEPTH },
      runOperation,
    );
    const deeper = {
      op: 'execute' as const,
      input: { item_type: 'tool', item_id: 'ch/deep', parameters: {} },
    };
    expect(await handler(deeper, ['rye.execute.tool.*'])).toMatchObject({
      status: 'error',
      error: { code: 'CHANNEL_DENIED' },
    });
    expect(existsSync(marker)).toBe(false);
    // One level up, the same request runs the tool, and it marks.
    const shallower = channelHandler(
      { ...context(p), channelDepth: MAX_CHANNEL_DEPTH - 1 },
      runOperation,
    );
    expect(await shallower(deeper, ['rye.execute.tool.*'])).toMatchObject({ status: 'success' });
    expect(existsSync(marker)).toBe(true);
  });
});
