import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { editFile, knowledgeText } from '../helpers/catalog.js';
import { WRITES_MARKERS, connect, makeMcpProject, pythonTool, type Connected } from './support.js';

/** The SDK client validates structuredContent against the output schema: a call that returns passed it. */
async function call(
  c: Connected,
  name: string,
  args: Record<string, unknown>,
): Promise<{ result: CallToolResult; doc: Record<string, unknown> }> {
  const result = (await c.client.callTool({ name, arguments: args })) as CallToolResult;
  const doc = result.structuredContent as Record<string, unknown>;
  const first = result.content[0];
  // The text block carries the same document, for clients that read only text.
  expect(first?.type).toBe('text');
  expect(JSON.parse((first as { text: string }).text)).toEqual(doc);
  expect(result.isError === true).toBe(doc['status'] === 'error');
  return { result, doc };
}

const codeOf = (doc: Record<string, unknown>): unknown =>
  (doc['error'] as { code?: unknown } | undefined)?.code;

describe('rye mcp serve over stdio (the SDK client against a real child process)', () => {
  it('lists the four tools with the operations’ strict schemas, the result union and the §13 annotations', async () => {
    const p = await makeMcpProject();
    const c = await connect(p);
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['execute', 'search', 'load', 'sign']);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]+$/);
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      expect(JSON.stringify(tool.outputSchema)).toContain('"const":"error"');
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName['execute']?.annotations).toMatchObject({
      destructiveHint: true,
      openWorldHint: true,
    });
    for (const name of ['search', 'load'])
      expect(byName[name]?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(byName['sign']?.annotations).toMatchObject({
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(Object.keys(byName['execute']?.inputSchema.properties ?? {}).sort()).toEqual(
      ['dry_run', 'inputs', 'item_id', 'item_type', 'parameters', 'thread'].sort(),
    );
    expect(c.stderr()).toContain('no ceiling: every call acts with your full authority');
  });

  it('answers each operation’s happy path with status success and structuredContent', async () => {
    const p = await makeMcpProject();
    const c = await connect(p);

    const exec = await call(c, 'execute', {
      item_type: 'tool',
      item_id: 't/echo',
      parameters: { x: 1 },
    });
    expect(exec.doc).toMatchObject({
      status: 'success',
      item_id: 't/echo',
      data: { echo: { x: 1 } },
    });
    expect(exec.result.isError).toBe(false);

    const found = await call(c, 'search', { query: 'alpha', item_type: 'knowledge' });
    expect(found.doc['status']).toBe('success');
    const results = (found.doc['data'] as { results: { item_id: string }[] }).results;
    expect(results.map((r) => r.item_id)).toContain('notes/alpha');

    const loaded = await call(c, 'load', { item_type: 'knowledge', item_id: 'notes/alpha' });
    expect(loaded.doc).toMatchObject({ status: 'success', item_id: 'notes/alpha' });
    expect((loaded.doc['data'] as { content: string }).content).toContain('alpha launch checklist');

    p.write('.ai/knowledge/notes/beta.md', knowledgeText('beta', 'notes', 'Beta'));
    const before = await call(c, 'load', { item_type: 'knowledge', item_id: 'notes/beta' });
    expect(codeOf(before.doc)).toBe('INTEGRITY_UNSIGNED');
    const signed = await call(c, 'sign', { item_type: 'knowledge', item_id: 'notes/beta' });
    expect(signed.doc).toMatchObject({
      status: 'success',
      data: { summary: { signed: 1, failed: 0 } },
    });
    const after = await call(c, 'load', { item_type: 'knowledge', item_id: 'notes/beta' });
    expect(after.doc['status']).toBe('success');
  });

  it('answers a directive with its plan under dry_run, for thread "wait" and "spawn" alike', async () => {
    const p = await makeMcpProject();
    const c = await connect(p);
    for (const thread of ['wait', 'spawn']) {
      const { doc } = await call(c, 'execute', {
        item_type: 'directive',
        item_id: 'ceilings/reader',
        thread,
        dry_run: true,
      });
      expect(doc).toMatchObject({ status: 'success', item_id: 'ceilings/reader' });
      const plan = doc['data'] as { capabilities: string[]; system_prompt: string };
      expect(plan.capabilities).toContain('rye.execute.tool.t/echo');
      expect(plan.system_prompt.length).toBeGreaterThan(0);
    }
  });

  it('refuses a tampered tool, an unsigned tool and an unknown item, and runs nothing', async () => {
    const p = await makeMcpProject();
    const c = await connect(p);
    const marker = join(p.markers, 'tampered');
    editFile(join(p.project, '.ai/tools/t/marker.py'), 'print(json.dumps', 'print(json.dumps ');
    const tampered = await call(c, 'execute', {
      item_type: 'tool',
      item_id: 't/marker',
      parameters: { path: marker },
    });
    expect(tampered.result.isError).toBe(true);
    expect(tampered.doc).toMatchObject({
      status: 'error',
      item_id: 't/marker',
      error: { code: 'INTEGRITY_HASH_MISMATCH' },
    });
    expect((tampered.doc['error'] as { hint: string }).hint.length).toBeGreaterThan(10);

    const unsignedMarker = join(p.markers, 'unsigned');
    p.write(
      '.ai/tools/t/fresh.py',
      pythonTool('t', 'open(params["path"], "w").write("ran")', WRITES_MARKERS),
    );
    const unsigned = await call(c, 'execute', {
      item_type: 'tool',
      item_id: 't/fresh',
      parameters: { path: unsignedMarker },
    });
    expect(codeOf(unsigned.doc)).toBe('INTEGRITY_UNSIGNED');

    const missing = await call(c, 'load', { item_type: 'knowledge', item_id: 'notes/nowhere' });
    expect(codeOf(missing.doc)).toBe('ITEM_NOT_FOUND');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(unsignedMarker)).toBe(false);
  });

  it('answers invalid arguments, unknown keys and unknown tools with error results, not protocol errors', async () => {
    const p = await makeMcpProject();
    const c = await connect(p);
    const marker = join(p.markers, 'smuggled');
    const smuggled = await call(c, 'execute', {
      item_type: 'tool',
      item_id: 't/marker',
      parameters: { path: marker },
      capabilities: ['rye.execute.tool.*'],
    });
    expect(smuggled.doc).toMatchObject({
      status: 'error',
      error: { code: 'OPERATION_INPUT_INVALID' },
    });
    expect(existsSync(marker)).toBe(false);

    const wrongType = await call(c, 'search', { query: 3 });
    expect(codeOf(wrongType.doc)).toBe('OPERATION_INPUT_INVALID');
    const issues = (wrongType.doc['error'] as { details: { issues: { path: string }[] } }).details
      .issues;
    expect(issues.map((i) => i.path)).toContain('query');

    const badId = await call(c, 'load', { item_type: 'tool', item_id: '../escape' });
    expect(codeOf(badId.doc)).toBe('ITEM_ID_INVALID');

    const unknown = await call(c, 'delete_everything', {});
    expect(unknown.doc).toMatchObject({ status: 'error', error: { code: 'MCP_TOOL_UNKNOWN' } });
  });

  it('picks up item changes on disk between two calls (no stale verdicts)', async () => {
    const p = await makeMcpProject();
    const c = await connect(p);
    const first = await call(c, 'load', { item_type: 'knowledge', item_id: 'notes/alpha' });
    expect(first.doc['status']).toBe('success');
    const path = p.itemPath('knowledge', 'notes/alpha', '.md');
    editFile(path, 'alpha launch checklist', 'alpha launch checklist, edited');
    const tampered = await call(c, 'load', { item_type: 'knowledge', item_id: 'notes/alpha' });
    expect(codeOf(tampered.doc)).toBe('INTEGRITY_HASH_MISMATCH');
    p.knowledge('notes/alpha', { title: 'Alpha notes', body: 'Re-signed body.' });
    const resigned = await call(c, 'load', { item_type: 'knowledge', item_id: 'notes/alpha' });
    expect((resigned.doc['data'] as { content: string }).content).toContain('Re-signed body.');

    const marker = join(p.markers, 'second-run');
    const ok = await call(c, 'execute', {
      item_type: 'tool',
      item_id: 't/marker',
      parameters: { path: join(p.markers, 'first-run') },
    });
    expect(ok.doc['status']).toBe('success');
    editFile(join(p.project, '.ai/tools/t/marker.py'), '"ran"', '"ran twice"');
    const refused = await call(c, 'execute', {
      item_type: 'tool',
      item_id: 't/marker',
      parameters: { path: marker },
    });
    expect(codeOf(refused.doc)).toBe('INTEGRITY_HASH_MISMATCH');
    expect(existsSync(join(p.markers, 'first-run'))).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it('serves concurrent calls, each answered with its own result', async () => {
    const p = await makeMcpProject();
    const c = await connect(p);
    const calls = Array.from({ length: 8 }, (_, i) =>
      i % 2 === 0
        ? call(c, 'execute', { item_type: 'tool', item_id: 't/echo', parameters: { i } })
        : call(c, 'load', { item_type: 'knowledge', item_id: 'notes/alpha' }),
    );
    const answers = await Promise.all(calls);
    answers.forEach(({ doc }, i) => {
      expect(doc['status']).toBe('success');
      if (i % 2 === 0) expect(doc['data']).toEqual({ echo: { i } });
      else expect(doc['item_id']).toBe('notes/alpha');
    });
  });
});
