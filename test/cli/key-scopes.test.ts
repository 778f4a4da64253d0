/**
 * Keys have scopes (issue 11): a trusted key limited to id patterns and item
 * types vouches for nothing else. Real `rye` subprocesses, real files; every
 * refused tool would write a marker, and the marker must be absent.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBundle } from '../../src/bundle/index.js';
import {
  formatTrustToml,
  signText,
  type KeyScope,
  type Signer,
} from '../../src/integrity/index.js';
import { rye } from '../helpers/cli.js';
import { BUILT_SYSTEM, makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { makeSigner } from '../helpers/keys.js';

// The tools of this suite write proof markers in the project's markers/, which
// they declare in `write`: they run sandboxed.

/** A python tool at `<category>/<name>` that writes `marker` when it runs. */
const markerTool = (category: string, marker: string, executor: string): string => `import json
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "${executor}"
__category__ = "${category}"
__tool_description__ = "writes a marker"
__permissions__ = {"write": ["markers"]}
open(${JSON.stringify(marker)}, "w").write("ran")
print(json.dumps({"ran": True}))
`;

const PY_RUNTIME = 'rye/core/runtimes/python_script_runtime';

/** Another author's key, trusted in user space with `scope` (none: unrestricted). */
function stranger(p: ExecProject, owner: string, scope?: KeyScope): Signer {
  const { signer, publicKeyPem } = makeSigner(owner);
  const toml = formatTrustToml({
    fingerprint: signer.fingerprint,
    owner,
    attestation: '',
    publicKeyPem,
    ...(scope === undefined ? {} : { scopes: [scope] }),
  });
  p.write(`.ai/trusted_keys/${signer.fingerprint}.toml`, toml, p.user);
  return signer;
}

function writeSigned(p: ExecProject, rel: string, body: string, signer: Signer): void {
  const extension = rel.slice(rel.lastIndexOf('.'));
  p.write(rel, signText(body, { itemType: 'tool', extension, signer }).text);
}

const execute = (p: ExecProject, id: string) =>
  rye(['execute', 'tool', id, '--project', p.project, '--json'], { env: p.env });

describe('key scopes, through the CLI', () => {
  it('a key scoped to apps/* signs other/tool: refused as untrusted, nothing ran; apps/tool runs', async () => {
    const p = await makeExecProject();
    const { signer, publicKeyPem } = makeSigner('carol');
    const pem = join(p.root, 'carol.pem');
    writeFileSync(pem, publicKeyPem);
    const added = await rye(
      [
        'trust',
        'add',
        pem,
        '--owner',
        'carol',
        '--scope',
        'apps/*',
        '--item-type',
        'tool',
        '--json',
      ],
      { env: p.env, cwd: p.project },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.json()).toMatchObject({ scope: ['apps/*'], item_types: ['tool'] });
    const toml = readFileSync(added.json<{ path: string }>().path, 'utf8');
    expect(toml).toContain('scope = ["apps/*"]');
    expect(toml).toContain('item_types = ["tool"]');

    const outside = join(p.project, 'markers', 'outside');
    writeSigned(p, '.ai/tools/other/tool.py', markerTool('other', outside, PY_RUNTIME), signer);
    const refused = await execute(p, 'other/tool');
    expect(refused.code).toBe(3);
    expect(refused.json()).toMatchObject({ error: { code: 'INTEGRITY_UNTRUSTED_KEY' } });
    expect(refused.stdout).toContain(
      'trusted only for ids apps/*; types tool, not tool other/tool',
    );
    expect(existsSync(outside)).toBe(false);

    const inside = join(p.project, 'markers', 'inside');
    writeSigned(p, '.ai/tools/apps/tool.py', markerTool('apps', inside, PY_RUNTIME), signer);
    const ran = await execute(p, 'apps/tool');
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(existsSync(inside)).toBe(true);
  });

  it('rye trust list shows each key with its scope; a bad --scope is a usage error', async () => {
    const p = await makeExecProject();
    const { publicKeyPem } = makeSigner('dave');
    const pem = join(p.root, 'dave.pem');
    writeFileSync(pem, publicKeyPem);
    const env = { env: p.env, cwd: p.project };
    const bad = await rye(['trust', 'add', pem, '--scope', 'apps/*/x', '--json'], env);
    expect(bad.code).toBe(2);
    expect(bad.json()).toMatchObject({ error: { code: 'USAGE_INVALID_ARGUMENT' } });
    const badType = await rye(['trust', 'add', pem, '--item-type', 'plan', '--json'], env);
    expect(badType.code).toBe(2);
    expect(
      (await rye(['trust', 'add', pem, '--scope', 'team/**', '--item-type', 'directive'], env))
        .code,
    ).toBe(0);
    const listed = await rye(['trust', 'list'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/dave {2}for ids team\/\*\*; types directive/);
    const json = await rye(['trust', 'list', '--json'], env);
    const keys = json.json<{ keys: { owner: string; scope: unknown; item_types: unknown }[] }>()
      .keys;
    expect(keys.find((k) => k.owner === 'dave')).toMatchObject({
      scope: ['team/**'],
      item_types: ['directive'],
    });
    // The user's own key (written on first signing) stays unrestricted.
    expect(keys.find((k) => k.owner === 'self')).toMatchObject({ scope: null, item_types: null });
  });

  it('a project tool may use a project runtime only when the signers are scoped for both', async () => {
    const runtimeYaml = readFileSync(
      join(BUILT_SYSTEM, '.ai/tools/rye/core/runtimes/python_script_runtime.yaml'),
      'utf8',
    )
      .replace(/^# rye:signed:.*\n/, '')
      .replace('category: rye/core/runtimes', 'category: proj/runtimes');
    const setup = async (runtimeScope: string[]) => {
      const p = await makeExecProject();
      const toolKey = stranger(p, 'tools-author', { ids: ['proj/tool'], itemTypes: ['tool'] });
      const runtimeKey = stranger(p, 'runtime-author', { ids: runtimeScope, itemTypes: null });
      const marker = join(p.project, 'markers', 'marker');
      writeSigned(
        p,
        '.ai/tools/proj/tool.py',
        markerTool('proj', marker, 'proj/runtimes/py'),
        toolKey,
      );
      writeSigned(p, '.ai/tools/proj/runtimes/py.yaml', runtimeYaml, runtimeKey);
      return { p, marker };
    };

    // The runtime's key is scoped to the tool, not to the runtime: the runtime is refused.
    const refused = await setup(['proj/tool']);
    const res = await execute(refused.p, 'proj/tool');
    expect(res.code).toBe(3);
    expect(res.json()).toMatchObject({ error: { code: 'INTEGRITY_UNTRUSTED_KEY' } });
    expect(res.stdout).toContain('proj/runtimes/py');
    expect(existsSync(refused.marker)).toBe(false);

    // Each signer scoped for its own element: the chain runs.
    const allowed = await setup(['proj/runtimes/*']);
    const ok = await execute(allowed.p, 'proj/tool');
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(existsSync(allowed.marker)).toBe(true);
  });

  it('a bundle manifest signed by a key not scoped for the bundle does not cover an unsigned file', async () => {
    // `toolsBy`: who signed the folder's tools, you or the bundle's author.
    const setup = async (scope: KeyScope, toolsBy: 'you' | 'bundler' = 'you') => {
      const p = await makeExecProject();
      const marker = join(p.project, 'markers', 'marker');
      const bundler = stranger(p, 'bundler', scope);
      // Unsigned: only a manifest entry could authenticate it.
      p.write(
        '.ai/tools/apps/notes/helper.py',
        `open(${JSON.stringify(marker)}, "w").write("ran")\n`,
      );
      const run = markerTool(
        'apps/notes',
        join(p.project, 'markers', 'unused'),
        PY_RUNTIME,
      ).replace('import json', 'import json\nimport helper');
      if (toolsBy === 'bundler') {
        writeSigned(p, '.ai/tools/apps/notes/__init__.py', '', bundler);
        writeSigned(p, '.ai/tools/apps/notes/run.py', run, bundler);
      } else {
        p.write('.ai/tools/apps/notes/__init__.py', '');
        p.write('.ai/tools/apps/notes/run.py', run);
        await p.sign('tool', 'apps/notes/run');
        await p.sign('tool', 'apps/notes/__init__');
      }
      await createBundle({
        spaces: p.spaces,
        bundleId: 'apps/notes',
        version: '1.0.0',
        includes: [],
        signer: bundler,
      });
      return { p, marker };
    };

    const refused = await setup({ ids: ['apps/other', 'apps/other/**'], itemTypes: null });
    const res = await execute(refused.p, 'apps/notes/run');
    expect(res.code).toBe(3);
    expect(res.json()).toMatchObject({ error: { code: 'INTEGRITY_UNSIGNED' } });
    expect(res.stdout).toContain('helper.py');
    expect(existsSync(refused.marker)).toBe(false);

    // A key scoped for tools only is not scoped for the bundle's manifest either.
    const toolsOnly = await setup({ ids: ['apps/notes', 'apps/notes/**'], itemTypes: ['tool'] });
    expect((await execute(toolsOnly.p, 'apps/notes/run')).code).toBe(3);
    expect(existsSync(toolsOnly.marker)).toBe(false);

    // Scoped for the bundle, the manifest covers the file for the bundle's own
    // tools; a tool of yours in that folder does not run the author's file.
    const allowed = await setup(
      { ids: ['apps/notes', 'apps/notes/**'], itemTypes: ['bundle', 'tool'] },
      'bundler',
    );
    const ok = await execute(allowed.p, 'apps/notes/run');
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(existsSync(allowed.marker)).toBe(true);
    const mixed = await setup({ ids: ['apps/notes'], itemTypes: ['bundle'] });
    const refused2 = await execute(mixed.p, 'apps/notes/run');
    expect(refused2.json()).toMatchObject({ error: { code: 'EXECUTOR_DEPENDENCY_SIGNER_MIXED' } });
    expect(existsSync(mixed.marker)).toBe(false);
  });
});

describe('rye verify-file --item-id', () => {
  it('verifies a file signed by a scoped key only as an id the scope covers', async () => {
    const p = await makeExecProject();
    const signer = stranger(p, 'dana', { ids: ['apps/*'], itemTypes: null });
    writeSigned(
      p,
      'loose/tool.py',
      markerTool('apps', join(p.project, 'markers', 'm'), PY_RUNTIME),
      signer,
    );
    const file = join(p.project, 'loose/tool.py');
    const check = (...extra: string[]) =>
      rye(
        ['verify-file', file, '--item-type', 'tool', '--project', p.project, '--json', ...extra],
        {
          env: p.env,
        },
      );
    expect((await check('--item-id', 'apps/tool')).code).toBe(0);
    const outside = await check('--item-id', 'other/tool');
    expect(outside.code).toBe(3);
    expect(outside.json()).toMatchObject({ code: 'INTEGRITY_UNTRUSTED_KEY' });
    // Naming no item, a scoped key vouches for nothing.
    expect((await check()).json()).toMatchObject({ code: 'INTEGRITY_UNTRUSTED_KEY' });
    expect((await check('--item-id', '../x')).code).toBe(2);
  });
});
