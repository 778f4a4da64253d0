import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { DIRECTIVE, KNOWLEDGE, PYTHON_TOOL } from '../helpers/items.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';
import { requireVectors } from '../helpers/vectors.js';

async function withKey(): Promise<TempSpaces> {
  const s = makeTempSpaces();
  const gen = await rye(['keys', 'generate'], { env: s.env });
  expect(gen.code).toBe(0);
  return s;
}

const inProject = (s: TempSpaces, ...args: string[]) =>
  rye([...args, '--project', s.project], { env: s.env });

interface SignDoc {
  ok: boolean;
  summary: { signed: number; failed: number };
  signed: { item_id: string; role: string }[];
  failed: { item_id: string; code: string; details: { issues?: unknown[] } }[];
  self_trusted: string | null;
}

describe('rye sign', () => {
  it('signs a tool in place, trusts the signer in user space, and verify accepts it', async () => {
    const s = await withKey();
    const path = s.write('.ai/tools/demo/hello.py', PYTHON_TOOL('demo'));
    const res = await inProject(s, 'sign', 'tool', 'demo/hello', '--json');
    expect(res.code).toBe(0);
    const doc = res.json<SignDoc>();
    expect(doc.summary).toEqual({ signed: 1, failed: 0 });
    expect(doc.self_trusted).toMatch(/trusted_keys\/[0-9a-f]{16}\.toml$/);
    expect(readFileSync(path, 'utf8')).toMatch(/^# rye:signed:\S+\n"""A test tool\."""/);
    const verify = await inProject(s, 'verify', 'tool', 'demo/hello', '--json');
    expect(verify.code).toBe(0);
    expect(verify.json<{ results: { verdict: string; space: string }[] }>().results).toEqual([
      expect.objectContaining({ verdict: 'ok', space: 'project' }),
    ]);
  });

  it('signs a glob: * one level, ** everything below, and counts signed and failed', async () => {
    const s = await withKey();
    s.write('.ai/tools/apps/task-manager/build.py', PYTHON_TOOL('apps/task-manager'));
    s.write('.ai/tools/apps/task-manager/helper.py', 'def helper():\n    return 1\n');
    s.write('.ai/tools/apps/task-manager/lib/deep.py', 'X = 1\n');
    s.write('.ai/tools/apps/task-manager/node_modules/dep/index.js', 'module.exports = 1;\n');
    const one = (
      await inProject(s, 'sign', 'tool', 'apps/task-manager/*', '--json')
    ).json<SignDoc>();
    expect(one.signed.map((x) => [x.item_id, x.role])).toEqual([
      ['apps/task-manager/build', 'entry'],
      ['apps/task-manager/helper', 'dependency'],
    ]);
    const all = (
      await inProject(s, 'sign', 'tool', 'apps/task-manager/**', '--json')
    ).json<SignDoc>();
    expect(all.summary).toEqual({ signed: 3, failed: 0 });
    expect(
      readFileSync(
        join(s.project, '.ai/tools/apps/task-manager/node_modules/dep/index.js'),
        'utf8',
      ),
    ).not.toContain('rye:signed');
  });

  it('reports every validation issue, signs the rest, leaves the bad file untouched and exits 1', async () => {
    const s = await withKey();
    s.write('.ai/tools/apps/x/good.py', PYTHON_TOOL('apps/x'));
    const badText = PYTHON_TOOL('wrong/place').replace('"1.0.0"', '"1.0"');
    const bad = s.write('.ai/tools/apps/x/bad.py', badText);
    const res = await inProject(s, 'sign', 'tool', 'apps/x/*', '--json');
    expect(res.code).toBe(1);
    const doc = res.json<SignDoc>();
    expect(doc.summary).toEqual({ signed: 1, failed: 1 });
    expect(doc.failed[0]).toMatchObject({ item_id: 'apps/x/bad', code: 'VALIDATION_FAILED' });
    expect(doc.failed[0]?.details.issues).toHaveLength(2);
    expect(readFileSync(bad, 'utf8')).toBe(badText);
    const human = await inProject(s, 'sign', 'tool', 'apps/x/bad');
    expect(human.stderr).toContain('VALIDATION_FAILED');
    expect(human.stdout).toContain('Signed 0, failed 1');
  });

  it('signs directives and knowledge with the <!-- --> line at byte 0', async () => {
    const s = await withKey();
    const d = s.write('.ai/directives/flows/run_all.md', DIRECTIVE('run_all', 'flows'));
    const k = s.write('.ai/knowledge/notes/intro.md', KNOWLEDGE('intro'));
    expect((await inProject(s, 'sign', 'directive', 'flows/run_all')).code).toBe(0);
    expect((await inProject(s, 'sign', 'knowledge', 'notes/**')).code).toBe(0);
    expect(readFileSync(d, 'utf8')).toMatch(/^<!-- rye:signed:\S+ -->\n# run_all/);
    expect(readFileSync(k, 'utf8')).toMatch(/^<!-- rye:signed:\S+ -->\n```yaml/);
    const v = await inProject(s, 'verify', 'directive', 'flows/*', '--json');
    expect(v.json<{ results: { coverage: string }[] }>().results[0]?.coverage).toBe('full');
  });

  it('refuses a directive with a DOCTYPE and knowledge with a YAML alias bomb, writing nothing', async () => {
    const s = await withKey();
    const evil = DIRECTIVE('evil', 'x').replace(
      '  <metadata>',
      '  <!DOCTYPE d [<!ENTITY a "aaaa">]>\n  <metadata>',
    );
    const d = s.write('.ai/directives/x/evil.md', evil);
    const bomb = s.write(
      '.ai/knowledge/x/bomb.yaml',
      [
        'a: &a ["x","x","x","x","x","x","x","x","x"]',
        ...'bcdefghi'
          .split('')
          .map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
        'name: bomb',
      ].join('\n') + '\n',
    );
    const dr = await inProject(s, 'sign', 'directive', 'x/evil', '--json');
    expect(dr.code).toBe(1);
    expect(dr.json<SignDoc>().failed[0]?.code).toBe('PARSE_UNSAFE_CONTENT');
    const kr = await inProject(s, 'sign', 'knowledge', 'x/bomb', '--json');
    expect(kr.json<SignDoc>().failed[0]?.code).toBe('PARSE_UNSAFE_CONTENT');
    expect(readFileSync(d, 'utf8')).toBe(evil);
    expect(readFileSync(bomb, 'utf8')).not.toContain('rye:signed');
  });

  it('refuses system space, a missing key, and ids that could leave the type folder', async () => {
    const s = makeTempSpaces();
    s.write('.ai/tools/demo/hello.py', PYTHON_TOOL('demo'));
    const system = await inProject(s, 'sign', 'tool', 'demo/hello', '--space', 'system', '--json');
    expect(system.code).toBe(1);
    expect(system.json<{ error: { code: string } }>().error.code).toBe('SPACE_READ_ONLY');
    const noKey = await inProject(s, 'sign', 'tool', 'demo/hello', '--json');
    expect(noKey.json<{ error: { code: string } }>().error.code).toBe('KEY_NOT_FOUND');
    for (const id of ['../escape', '/etc/passwd', 'a\\b', 'a//b', 'demo/', 'demo/../../x']) {
      const res = await inProject(s, 'sign', 'tool', id, '--json');
      expect(res.code, id).toBe(2);
      expect(res.json<{ error: { code: string } }>().error.code).toBe('ITEM_ID_INVALID');
    }
  });
});

describe('rye verify', () => {
  it('refuses a tampered tool with exit 3 and names the hashes', async () => {
    const s = await withKey();
    const path = s.write('.ai/tools/demo/hello.py', PYTHON_TOOL('demo'));
    await inProject(s, 'sign', 'tool', 'demo/hello');
    writeFileSync(path, readFileSync(path, 'utf8') + 'import os\n');
    const res = await inProject(s, 'verify', 'tool', 'demo/hello');
    expect(res.code).toBe(3);
    expect(res.stdout).toContain('INTEGRITY_HASH_MISMATCH');
    expect(res.stdout).toContain('0 ok, 1 failed');
  });

  it('resolves project before user, and finds the signed system standard library', async () => {
    const s = await withKey();
    s.write('.ai/tools/demo/hello.py', PYTHON_TOOL('demo'));
    s.write('.ai/tools/demo/hello.py', PYTHON_TOOL('demo'), s.user);
    await inProject(s, 'sign', 'tool', 'demo/hello');
    const res = await inProject(s, 'verify', 'tool', 'demo/hello', '--json');
    expect(res.json<{ results: { space: string }[] }>().results[0]?.space).toBe('project');

    const env = { ...s.env };
    delete env['RYE_SYSTEM_SPACE'];
    const sys = await rye(
      ['verify', 'knowledge', 'rye/core/signatures', '--json', '--project', s.project],
      { env },
    );
    expect(sys.code).toBe(0);
    expect(
      sys.json<{ results: { space: string; verdict: string; signer: string }[] }>().results[0],
    ).toMatchObject({
      space: 'system',
      verdict: 'ok',
      signer: 'rye-system-build',
    });
  });

  it('reports ITEM_AMBIGUOUS for one id with two extensions in one space, and ITEM_NOT_FOUND', async () => {
    const s = await withKey();
    s.write('.ai/tools/demo/twin.py', PYTHON_TOOL('demo'));
    s.write('.ai/tools/demo/twin.yaml', 'version: "1.0.0"\n');
    const amb = await inProject(s, 'verify', 'tool', 'demo/twin', '--json');
    expect(amb.code).toBe(1);
    expect(amb.json<{ error: { code: string } }>().error.code).toBe('ITEM_AMBIGUOUS');
    const none = await inProject(s, 'verify', 'tool', 'demo/none', '--json');
    expect(none.code).toBe(1);
    expect(none.json<{ error: { code: string } }>().error.code).toBe('ITEM_NOT_FOUND');
  });

  it('--require-full-coverage refuses an xml-only directive with INTEGRITY_PARTIAL_COVERAGE', async () => {
    const s = makeTempSpaces();
    const vectors = join(requireVectors(), 'synthetic/files/.ai');
    s.write(
      '.ai/directives/demo/legacy_span.md',
      readFileSync(join(vectors, 'directives/demo/legacy_span.md')),
    );
    s.write(
      '.ai/trusted_keys/9d65c1cc10c335a2.toml',
      readFileSync(join(vectors, 'trusted_keys/9d65c1cc10c335a2.toml')),
    );
    expect((await inProject(s, 'trust', 'approve')).code).toBe(0);
    const lax = await inProject(s, 'verify', 'directive', 'demo/legacy_span');
    expect(lax.code).toBe(0);
    expect(lax.stdout).toContain('only the <directive> span is signed');
    const strict = await inProject(
      s,
      'verify',
      'directive',
      'demo/legacy_span',
      '--require-full-coverage',
      '--json',
    );
    expect(strict.code).toBe(3);
    expect(strict.json<{ results: { code: string }[] }>().results[0]?.code).toBe(
      'INTEGRITY_PARTIAL_COVERAGE',
    );
  });
});

describe('rye verify-file', () => {
  it('prints the conformance JSON and trusts exactly the --trust keys', async () => {
    const s = await withKey();
    const path = s.write('.ai/tools/demo/hello.py', PYTHON_TOOL('demo'));
    await inProject(s, 'sign', 'tool', 'demo/hello');
    const own = await rye(['verify-file', path, '--item-type', 'tool', '--json'], { env: s.env });
    expect(own.code).toBe(0);
    const doc = own.json();
    for (const key of [
      'ok',
      'verdict',
      'code',
      'path',
      'item_type',
      'fingerprint',
      'content_hash',
      'coverage',
      'provenance',
    ]) {
      expect(doc).toHaveProperty(key);
    }
    expect(doc).toMatchObject({
      ok: true,
      verdict: 'ok',
      code: null,
      path,
      item_type: 'tool',
      coverage: null,
      provenance: null,
    });

    const other = await withKey();
    const stranger = join(other.user, '.ai', 'keys', 'public_key.pem');
    const res = await rye(
      ['verify-file', path, '--item-type', 'tool', '--trust', stranger, '--json'],
      { env: s.env },
    );
    expect(res.code).toBe(3);
    expect(res.json()).toMatchObject({ verdict: 'untrusted_key', code: 'INTEGRITY_UNTRUSTED_KEY' });
  });

  it('exits 1 for a missing file and 2 for a missing --item-type', async () => {
    const s = makeTempSpaces();
    const missing = await rye(
      ['verify-file', join(s.root, 'nope.py'), '--item-type', 'tool', '--json'],
      { env: s.env },
    );
    expect(missing.code).toBe(1);
    expect(missing.json()).toMatchObject({ verdict: 'unreadable', code: 'FILE_UNREADABLE' });
    const usage = await rye(['verify-file', join(s.root, 'nope.py'), '--json'], { env: s.env });
    expect(usage.code).toBe(2);
    expect(usage.json()).toMatchObject({ ok: false, error: { code: 'USAGE_INVALID_ARGUMENT' } });
  });
});

describe('usage errors exit 2', () => {
  for (const args of [
    ['frobnicate'],
    ['sign'],
    ['sign', 'widget', 'x'],
    ['verify', 'tool'],
    ['trust', 'add'],
  ]) {
    it(`rye ${args.join(' ')}`, async () => {
      const s = makeTempSpaces();
      const res = await rye(args, { env: s.env });
      expect(res.code).toBe(2);
    });
  }
});
