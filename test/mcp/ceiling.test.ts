import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  parseRevocationList,
  readCeilingSources,
  readRevocationList,
  resolveAuthority,
  revocationListPath,
  revokeCeilingJti,
} from '../../src/mcp/index.js';
import { capStrings } from '../../src/capabilities/index.js';
import { editFile } from '../helpers/catalog.js';
import { refusal } from '../helpers/refusal.js';
import {
  ceilingToken,
  connect,
  directiveWith,
  makeMcpProject,
  pythonTool,
  writeRootFile,
  type Connected,
  type McpProject,
} from './support.js';

async function doc(
  c: Connected,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = (await c.client.callTool({ name, arguments: args })) as CallToolResult;
  return result.structuredContent as Record<string, unknown>;
}

const codeOf = (d: Record<string, unknown>): unknown => (d['error'] as { code?: unknown })?.code;
const reasonOf = (d: Record<string, unknown>): unknown =>
  (d['error'] as { details?: { reason?: unknown } })?.details?.reason;

const options = (p: McpProject) => ({ spaces: p.spaces, env: p.env });
/** The token with block 0's caps widened to every tool, its signature left as it was. */
const widened = (token: string): string => {
  const doc = JSON.parse(
    Buffer.from(token.slice('rye-cap-v1.'.length).split('.')[0]!, 'base64url').toString(),
  ) as {
    blocks: { body: { caps: string[] } }[];
  };
  doc.blocks[0]!.body.caps = ['rye.execute.tool.*'];
  // The seal kept: the chain's own signature is what refuses it.
  const seal = token.split('.')[2]!;
  return `rye-cap-v1.${Buffer.from(JSON.stringify(doc)).toString('base64url')}.${seal}`;
};
const jtiOf = (token: string): string => {
  const chain = token.slice('rye-cap-v1.'.length).split('.')[0]!;
  const json = JSON.parse(Buffer.from(chain, 'base64url').toString());
  return (json as { blocks: { body: { jti: string } }[] }).blocks[0]!.body.jti;
};

describe('--ceiling <directive-id>', () => {
  it('caps every call at the directive’s declared set, and refuses outside it without running anything', async () => {
    const p = await makeMcpProject();
    const c = await connect(p, ['--ceiling', 'ceilings/reader']);
    expect(c.stderr()).toContain('ceiling directive ceilings/reader');

    const echoed = await doc(c, 'execute', {
      item_type: 'tool',
      item_id: 't/echo',
      parameters: { a: 1 },
    });
    expect(echoed).toMatchObject({ status: 'success', data: { echo: { a: 1 } } });

    const marker = join(p.markers, 'outside');
    const denied = await doc(c, 'execute', {
      item_type: 'tool',
      item_id: 't/marker',
      parameters: { path: marker },
    });
    expect(denied).toMatchObject({
      status: 'error',
      error: { code: 'CAPABILITY_DENIED', details: { required: 'rye.execute.tool.t/marker' } },
    });
    expect(existsSync(marker)).toBe(false);

    expect(await doc(c, 'load', { item_type: 'knowledge', item_id: 'notes/alpha' })).toMatchObject({
      status: 'success',
    });
    expect(codeOf(await doc(c, 'load', { item_type: 'knowledge', item_id: 'secret/plan' }))).toBe(
      'CAPABILITY_DENIED',
    );
    expect(codeOf(await doc(c, 'sign', { item_type: 'knowledge', item_id: 'notes/alpha' }))).toBe(
      'CAPABILITY_DENIED',
    );
  });

  it('refuses every call once the ceiling directive is tampered with (no fallback to the user’s authority)', async () => {
    const p = await makeMcpProject();
    const c = await connect(p, ['--ceiling', 'ceilings/reader']);
    expect((await doc(c, 'search', { query: 'alpha' }))['status']).toBe('success');
    editFile(
      join(p.project, '.ai/directives/ceilings/reader.md'),
      '<search>*</search>',
      '<search>*</search><sign>*</sign>',
    );
    for (const [name, args] of [
      ['search', { query: 'alpha' }],
      ['execute', { item_type: 'tool', item_id: 't/echo' }],
      ['load', { item_type: 'knowledge', item_id: 'notes/alpha' }],
    ] as const)
      expect(codeOf(await doc(c, name, args))).toBe('INTEGRITY_HASH_MISMATCH');
  });

  it('resolveAuthority() narrows the operator’s authority to the declared set, sign grants dropped without the acknowledgement', async () => {
    const p = await makeMcpProject();
    const authority = await resolveAuthority(
      [{ kind: 'directive', directiveId: 'ceilings/reader' }],
      options(p),
    );
    expect(authority.source).toBe('ceiling');
    expect(capStrings(authority.caps)).toEqual(
      expect.arrayContaining([
        'rye.execute.tool.t/echo',
        'rye.load.knowledge.notes/*',
        'rye.search.tool.*',
      ]),
    );
    expect(capStrings(authority.caps).some((c) => c.startsWith('rye.sign.'))).toBe(false);
  });
});

describe('a ceiling directive’s <sandbox>', () => {
  it('narrows the sandbox of every tool the server runs, as it does a thread’s: the dry run shows it', async () => {
    const p = await makeMcpProject();
    p.write(
      '.ai/tools/t/wide.py',
      pythonTool(
        't',
        '__permissions__ = {"write": ["out/**", "logs/**"], "network": True, "daemon": True}\nprint("{}")',
      ),
    );
    await p.sign('tool', 't/wide');
    // A ceiling has no inputs: the entry with a placeholder grants nothing.
    p.write(
      '.ai/directives/ceilings/boxed.md',
      directiveWith(
        'boxed',
        'ceilings',
        `      <execute><tool>t.*</tool></execute>
      <sandbox write="out/** {input:name}/**" network="false" daemon="false"/>`,
      ).replace(
        '</metadata>',
        '</metadata>\n  <inputs><input name="name" type="string" required="false">App</input></inputs>',
      ),
    );
    await p.sign('directive', 'ceilings/boxed');
    const authority = await resolveAuthority(
      [{ kind: 'directive', directiveId: 'ceilings/boxed' }],
      options(p),
    );
    expect(authority.sandbox).toEqual({ write: ['out/**'], network: false, daemon: false });

    const c = await connect(p, ['--ceiling', 'ceilings/boxed']);
    const planned = await doc(c, 'execute', {
      item_type: 'tool',
      item_id: 't/wide',
      dry_run: true,
    });
    expect(planned, JSON.stringify(planned)).toMatchObject({ status: 'success' });
    const { sandbox } = planned['plan'] as { sandbox: Record<string, unknown> };
    expect(sandbox).toMatchObject({
      write: ['out/**'],
      network: false,
      daemon: false,
      narrowed: ['write:logs/**', 'network', 'daemon'],
    });
  });
});

describe('--ceiling <token-file> and RYE_CAP_TOKEN', () => {
  it('caps calls at a root-only token’s caps; search results outside them are filtered out', async () => {
    const p = await makeMcpProject();
    const token = ceilingToken(p, ['rye.search.knowledge.*', 'rye.load.knowledge.notes/*']);
    const file = writeRootFile(p, 'ceiling.token', `${token}\n`);
    const c = await connect(p, ['--ceiling', file]);
    expect(c.stderr()).toContain(`ceiling token from ${file}`);
    expect(c.stderr()).not.toContain(token);

    const found = await doc(c, 'search', { query: '', limit: 100 });
    const ids = (found['data'] as { results: { item_type: string }[] }).results;
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((r) => r.item_type === 'knowledge')).toBe(true);
    expect(
      (await doc(c, 'load', { item_type: 'knowledge', item_id: 'notes/alpha' }))['status'],
    ).toBe('success');
    expect(codeOf(await doc(c, 'execute', { item_type: 'tool', item_id: 't/echo' }))).toBe(
      'CAPABILITY_DENIED',
    );
  });

  it('refuses everything once the token is revoked, on the next call', async () => {
    const p = await makeMcpProject();
    const token = ceilingToken(p, ['rye.search.knowledge.*', 'rye.load.knowledge.*']);
    const c = await connect(p, [], { RYE_CAP_TOKEN: token });
    expect(
      (await doc(c, 'load', { item_type: 'knowledge', item_id: 'notes/alpha' }))['status'],
    ).toBe('success');
    await revokeCeilingJti(p.spaces, jtiOf(token));
    for (const [name, args] of [
      ['load', { item_type: 'knowledge', item_id: 'notes/alpha' }],
      ['search', { query: 'alpha' }],
      ['execute', { item_type: 'tool', item_id: 't/echo' }],
    ] as const) {
      const refused = await doc(c, name, args);
      expect(codeOf(refused)).toBe('CAPABILITY_TOKEN_INVALID');
      expect(reasonOf(refused)).toBe('jti_finished');
    }
  });

  it('an invalid RYE_CAP_TOKEN refuses to start: the server never acts with the user’s authority', async () => {
    const p = await makeMcpProject();
    const { rye } = await import('../helpers/cli.js');
    const res = await rye(['mcp', 'serve', '--project', p.project], {
      env: { ...p.env, RYE_CAP_TOKEN: 'rye-cap-v1.garbage' },
    });
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('error[CAPABILITY_TOKEN_INVALID]');
    expect(res.stdout).toBe('');
  });

  it('resolveAuthority() refuses expired, foreign, thread and tampered tokens with their reasons', async () => {
    const p = await makeMcpProject();
    const other = await makeMcpProject();
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, string][] = [
      [ceilingToken(p, ['rye.search.tool.*'], { nbf: now - 100, exp: now - 1 }), 'expired'],
      [ceilingToken(other, ['rye.search.tool.*']), 'wrong_signer'],
      [
        ceilingToken(p, ['rye.search.tool.*'], {
          thread: 'build_crud_app-01jf00000000000000000000aa',
        }),
        'jti_mismatch',
      ],
      [widened(ceilingToken(p, ['rye.search.tool.*'])), 'bad_signature'],
    ];
    for (const [token, reason] of cases) {
      const error = await refusal(
        resolveAuthority([{ kind: 'token', token, origin: 'test' }], options(p)),
      );
      expect(error.code).toBe('CAPABILITY_TOKEN_INVALID');
      expect(error.details['reason']).toBe(reason);
    }
  });

  it('intersects the ceilings when both --ceiling and RYE_CAP_TOKEN are given', async () => {
    const p = await makeMcpProject();
    const token = ceilingToken(p, ['rye.load.knowledge.*', 'rye.execute.tool.t/marker']);
    const sources = readCeilingSources('ceilings/reader', { RYE_CAP_TOKEN: token }, p.root);
    expect(sources.map((s) => s.kind)).toEqual(['directive', 'token']);
    const caps = capStrings((await resolveAuthority(sources, options(p))).caps);
    expect(caps).toEqual(['rye.load.knowledge.notes/*']);
  });
});

describe('readCeilingSources() and the revocation list', () => {
  it('reads a token file, a directive id, and refuses anything else with MCP_CEILING_INVALID', async () => {
    const p = await makeMcpProject();
    const file = writeRootFile(p, 't.token', '  rye-cap-v1.abc  \n');
    expect(readCeilingSources(file, {}, p.root)).toEqual([
      { kind: 'token', token: 'rye-cap-v1.abc', origin: file },
    ]);
    expect(readCeilingSources('apps/x/reader', {}, p.root)).toEqual([
      { kind: 'directive', directiveId: 'apps/x/reader' },
    ]);
    expect(readCeilingSources(undefined, { RYE_CAP_TOKEN: '' }, p.root)).toEqual([]);
    for (const bad of ['../up', 'has space/x', 'a//b']) {
      const error = await refusal(
        Promise.resolve().then(() => readCeilingSources(bad, {}, p.root)),
      );
      expect(error.code).toBe('MCP_CEILING_INVALID');
    }
    const big = writeRootFile(p, 'big.token', 'x'.repeat(80 * 1024));
    const error = await refusal(Promise.resolve().then(() => readCeilingSources(big, {}, p.root)));
    expect(error.code).toBe('MCP_CEILING_INVALID');
  });

  it('fails the whole list on one bad line, and a broken list refuses every token call', async () => {
    const p = await makeMcpProject();
    expect(readRevocationList(p.spaces).size).toBe(0);
    expect([...parseRevocationList(`# c\n\n${'a'.repeat(32)}\n`, 'x')]).toEqual(['a'.repeat(32)]);
    const token = ceilingToken(p, ['rye.search.tool.*']);
    p.write('capabilities/revoked', `${'b'.repeat(32)}\nnot-a-jti\n`, join(p.user, '.ai'));
    expect(revocationListPath(p.spaces)).toBe(join(p.user, '.ai', 'capabilities', 'revoked'));
    const error = await refusal(
      resolveAuthority([{ kind: 'token', token, origin: 'test' }], options(p)),
    );
    expect(error).toMatchObject({ code: 'MCP_REVOCATIONS_INVALID', details: { line: 2 } });
    writeFileSync(revocationListPath(p.spaces), '');
    await revokeCeilingJti(p.spaces, 'c'.repeat(32));
    await revokeCeilingJti(p.spaces, 'c'.repeat(32));
    expect([...readRevocationList(p.spaces)]).toEqual(['c'.repeat(32)]);
  });
});
