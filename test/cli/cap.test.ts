import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { parseTtl, verifyCeilingToken, revocationListPath } from '../../src/capabilities/index.js';
import { refusal } from '../helpers/refusal.js';
import { rye, type CliResult } from '../helpers/cli.js';
import { connect, makeMcpProject, type McpProject } from '../mcp/support.js';

const CAPS = 'rye.load.knowledge.notes/*,rye.search.knowledge.*';

function run(p: McpProject, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return rye([...args, '--project', p.project], { env: { ...p.env, ...env } });
}

async function mint(
  p: McpProject,
  caps = CAPS,
  ttl = '1h',
): Promise<{ path: string; jti: string }> {
  const path = join(p.root, 'ceiling.token');
  const res = await run(p, ['cap', 'mint', '--caps', caps, '--ttl', ttl, '--out', path, '--json']);
  expect(res.code, res.stderr).toBe(0);
  const doc = res.json<{ jti: string; path: string; token?: string }>();
  expect(doc.path).toBe(path);
  expect(doc.token).toBeUndefined();
  return { path, jti: doc.jti };
}

const codeOf = (res: CliResult): string => res.json<{ error: { code: string } }>().error.code;

describe('rye cap mint', () => {
  it('writes a root-only token (0600) that holds a process to its caps as RYE_CAP_TOKEN and as --ceiling', async () => {
    const p = await makeMcpProject();
    const { path, jti } = await mint(p);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const token = readFileSync(path, 'utf8').trim();
    // A chain and its seal, made at mint by a holder key that was then dropped.
    expect(token).toMatch(/^rye-cap-v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{86}$/);
    const verified = verifyCeilingToken(token, p.spaces);
    expect(verified).toMatchObject({ thread: null, jti, blocks: 1 });
    expect(verified.holderPk).toMatch(/^[A-Za-z0-9_-]{59}$/);
    expect(verified.exp - verified.nbf).toBe(3600);

    const env = { RYE_CAP_TOKEN: token };
    const loaded = await run(p, ['load', 'knowledge', 'notes/alpha', '--json'], env);
    expect(loaded.code, loaded.stderr).toBe(0);
    const marker = join(p.markers, 'cli');
    const denied = await run(
      p,
      ['execute', 'tool', 't/marker', '--params', JSON.stringify({ path: marker }), '--json'],
      env,
    );
    expect(denied.code).toBe(3);
    expect(denied.stdout).toContain('CAPABILITY_DENIED');
    expect(existsSync(marker)).toBe(false);

    const c = await connect(p, ['--ceiling', path]);
    const call = (await c.client.callTool({
      name: 'execute',
      arguments: { item_type: 'tool', item_id: 't/marker', parameters: { path: marker } },
    })) as CallToolResult;
    expect(call.structuredContent).toMatchObject({ error: { code: 'CAPABILITY_DENIED' } });
    expect(existsSync(marker)).toBe(false);
  });

  it('prints the token itself without --out', async () => {
    const p = await makeMcpProject();
    const res = await run(p, ['cap', 'mint', '--caps', CAPS, '--ttl', '30m']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toMatch(/^rye-cap-v1\./);
    expect(res.stderr).toMatch(/jti [0-9a-f]{32}, expires /);
  });

  it('refuses bad caps, a bad ttl and caps wider than the process holds, writing nothing', async () => {
    const p = await makeMcpProject();
    const out = join(p.root, 'never.token');
    const bad = await run(p, [
      'cap',
      'mint',
      '--caps',
      'rye.run.tool.x',
      '--ttl',
      '1h',
      '--out',
      out,
      '--json',
    ]);
    expect(codeOf(bad)).toBe('CAPABILITY_INVALID');
    for (const ttl of ['0s', '366d', '10y', 'soon', '-5m']) {
      const res = await run(p, [
        'cap',
        'mint',
        '--caps',
        CAPS,
        '--ttl',
        ttl,
        '--out',
        out,
        '--json',
      ]);
      expect(codeOf(res), ttl).toBe('CAPABILITY_TTL_INVALID');
      expect(res.code).toBe(2);
    }
    const { path } = await mint(p, 'rye.load.knowledge.notes/*');
    const wider = await run(
      p,
      ['cap', 'mint', '--caps', 'rye.execute.tool.*', '--ttl', '1h', '--out', out, '--json'],
      { RYE_CAP_TOKEN: readFileSync(path, 'utf8') },
    );
    expect(codeOf(wider)).toBe('CAPABILITY_DENIED');
    expect(existsSync(out)).toBe(false);
  });

  it('parseTtl() reads s, m, h and d', () => {
    expect([parseTtl('90s'), parseTtl('30m'), parseTtl('12h'), parseTtl('7d')]).toEqual([
      90, 1800, 43_200, 604_800,
    ]);
  });
});

describe('a ceiling token refused', () => {
  it('once revoked (rye cap revoke), expired, or with a bad signature; a bad jti is refused', async () => {
    const p = await makeMcpProject();
    const { path, jti } = await mint(p);
    const token = readFileSync(path, 'utf8').trim();
    const c = await connect(p, ['--ceiling', path]);
    const load = { item_type: 'knowledge', item_id: 'notes/alpha' };
    const before = (await c.client.callTool({ name: 'load', arguments: load })) as CallToolResult;
    expect(before.isError).toBeFalsy();

    const revoked = await run(p, ['cap', 'revoke', jti, '--json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(readFileSync(revocationListPath(p.spaces), 'utf8')).toContain(jti);
    const after = (await c.client.callTool({ name: 'load', arguments: load })) as CallToolResult;
    expect(after.structuredContent).toMatchObject({
      error: { code: 'CAPABILITY_TOKEN_INVALID', details: { reason: 'jti_finished' } },
    });
    const cli = await run(p, ['load', 'knowledge', 'notes/alpha', '--json'], {
      RYE_CAP_TOKEN: token,
    });
    expect(cli.code).toBe(3);
    expect(cli.json<{ error: { details: { reason: string } } }>().error.details.reason).toBe(
      'jti_finished',
    );

    const fresh = (await mint(p)).path;
    const live = readFileSync(fresh, 'utf8').trim();
    const exp = verifyCeilingToken(live, p.spaces).exp;
    const later = Promise.resolve().then(() => verifyCeilingToken(live, p.spaces, exp));
    expect(await refusal(later)).toMatchObject({
      code: 'CAPABILITY_TOKEN_INVALID',
      details: { reason: 'expired' },
    });
    // Another key's signature over the same body: flip one signature character.
    const [body, seal] = live.slice('rye-cap-v1.'.length).split('.');
    const decoded = JSON.parse(Buffer.from(body ?? '', 'base64url').toString('utf8')) as {
      blocks: { sig: string }[];
    };
    const sig = decoded.blocks[0]?.sig ?? '';
    (decoded.blocks[0] as { sig: string }).sig = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    const forged = `rye-cap-v1.${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${seal}`;
    writeFileSync(fresh, forged);
    const bad = await run(p, ['load', 'knowledge', 'notes/alpha', '--json'], {
      RYE_CAP_TOKEN: forged,
    });
    expect(bad.code).toBe(3);
    expect(bad.json<{ error: { details: { reason: string } } }>().error.details.reason).toBe(
      'bad_signature',
    );

    // A mistyped jti is a usage error (exit 2), not a broken revocation list.
    const nonsense = await run(p, ['cap', 'revoke', 'not-a-jti', '--json']);
    expect(nonsense.code).toBe(2);
    expect(codeOf(nonsense)).toBe('USAGE_INVALID_ARGUMENT');
  });
});
