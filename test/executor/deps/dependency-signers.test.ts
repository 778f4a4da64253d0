import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute, updateLockfile } from '../../../src/executor/index.js';
import { assertOneSigner } from '../../../src/executor/deps/dependency-signers.js';
import {
  formatTrustToml,
  readSigner,
  signText,
  trustSetOf,
  type Signer,
} from '../../../src/integrity/index.js';
import { keyDir, loadSpaceTrust } from '../../../src/items/index.js';
import { makeExecProject, type ExecProject } from '../../helpers/exec-project.js';
import { makeSigner } from '../../helpers/keys.js';
import { refusal } from '../../helpers/refusal.js';

const TODO2 = '.ai/tools/apps/todo2';

/** A multi-file Python tool of yours in apps/todo2 (its folder goes on PYTHONPATH). */
async function todo2Project(): Promise<ExecProject> {
  const p = await makeExecProject({ sandbox: 'off' });
  p.write(`${TODO2}/__init__.py`, '');
  p.write(
    `${TODO2}/todo2.py`,
    `__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "apps/todo2"
__tool_description__ = "todo2"
print('{"todo2": true}')
`,
  );
  await p.sign('tool', 'apps/todo2/*');
  return p;
}

/** A registry author trusted for bundle `apps`, as a pull records it (scope apps, apps/**). */
function trustAuthor(p: ExecProject): Signer {
  const { signer, publicKeyPem } = makeSigner('mallory');
  const toml = formatTrustToml({
    fingerprint: signer.fingerprint,
    owner: 'mallory@registry.test',
    attestation: '',
    publicKeyPem,
    scopes: [{ ids: ['apps', 'apps/**'], itemTypes: ['directive', 'tool', 'knowledge', 'bundle'] }],
  });
  p.write(`.ai/trusted_keys/${signer.fingerprint}.toml`, toml, p.user);
  return signer;
}

/** The planted file: Python imports sitecustomize from PYTHONPATH before the tool runs. */
function plant(p: ExecProject, signer: Signer): string {
  const marker = join(p.root, 'pwned');
  const text = `open(${JSON.stringify(marker)}, "w").write("planted")\n`;
  p.write(
    `${TODO2}/sitecustomize.py`,
    signText(text, { itemType: 'tool', extension: '.py', signer }).text,
  );
  return marker;
}

const run = (p: ExecProject) =>
  execute({ spaces: p.spaces, toolId: 'apps/todo2/todo2', env: p.env });

describe('no mixed signers in a tool folder', () => {
  it('refuses your tool when a trusted author key signed a file in its folder, before anything runs', async () => {
    const p = await todo2Project();
    const author = trustAuthor(p);
    const marker = plant(p, author);
    const refused = await refusal(run(p));
    expect(refused.code).toBe('EXECUTOR_DEPENDENCY_SIGNER_MIXED');
    expect(refused.message).toContain('sitecustomize.py');
    expect(refused.message).toContain(`mallory@registry.test (${author.fingerprint})`);
    const own = await readSigner(keyDir(p.spaces));
    expect(refused.message).toContain(own.fingerprint);
    expect(refused.details).toMatchObject({
      signer: author.fingerprint,
      toolSigner: own.fingerprint,
    });
    expect(existsSync(marker)).toBe(false);
  });

  it('runs the same file signed by you (the refusal above is what stopped it)', async () => {
    const p = await todo2Project();
    trustAuthor(p);
    const marker = plant(p, await readSigner(keyDir(p.spaces)));
    const result = await run(p);
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(readFileSync(marker, 'utf8')).toBe('planted');
  });

  it('refuses to pin it (`rye lock update` prepares the run as execute does)', async () => {
    const p = await todo2Project();
    const marker = plant(p, trustAuthor(p));
    const { trust } = await loadSpaceTrust(p.spaces);
    const refused = await refusal(updateLockfile(p.spaces, 'apps/todo2/todo2', trust));
    expect(refused.code).toBe('EXECUTOR_DEPENDENCY_SIGNER_MIXED');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('no mixed signers, whatever the runtime', () => {
  const cases = [
    {
      runtime: 'node',
      tool: 'todo2.mjs',
      body: `export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node_runtime";
export const __category__ = "apps/todo2";
export const __tool_description__ = "todo2";
await import("./helper.mjs");
console.log('{"todo2": true}');
`,
      planted: 'helper.mjs',
      plantedBody: (marker: string) =>
        `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "planted");\n`,
    },
    {
      runtime: 'shell',
      tool: 'todo2.sh',
      body: `#!/bin/sh
# __version__ = "1.0.0"
# __tool_type__ = "shell"
# __executor_id__ = "rye/core/runtimes/shell_runtime"
# __category__ = "apps/todo2"
# __tool_description__ = "todo2"
helper.sh
echo '{"todo2": true}'
`,
      planted: 'bin/helper.sh',
      plantedBody: (marker: string) => `#!/bin/sh\necho planted > ${JSON.stringify(marker)}\n`,
    },
  ];

  for (const c of cases) {
    it(`refuses a ${c.runtime} tool whose folder holds a file signed by a trusted author`, async () => {
      const p = await makeExecProject({ sandbox: 'off' });
      const own = await readSigner(keyDir(p.spaces));
      const ext = c.tool.slice(c.tool.lastIndexOf('.'));
      p.write(
        `${TODO2}/${c.tool}`,
        signText(c.body, { itemType: 'tool', extension: ext, signer: own }).text,
      );
      if (c.runtime === 'node') {
        // The anchor marker: the tool's folder becomes its dependency scope.
        const pkg = signText('{"type": "module"}\n', {
          itemType: 'tool',
          extension: '.json',
          signer: own,
        });
        p.write(`${TODO2}/package.json`, pkg.text);
      }
      const author = trustAuthor(p);
      const marker = join(p.root, 'pwned');
      const plantedExt = c.planted.slice(c.planted.lastIndexOf('.'));
      const planted = signText(c.plantedBody(marker), {
        itemType: 'tool',
        extension: plantedExt,
        signer: author,
      });
      const path = p.write(`${TODO2}/${c.planted}`, planted.text);
      if (c.runtime === 'shell') chmodSync(path, 0o755);
      const refused = await refusal(run(p));
      expect(refused.code, refused.message).toBe('EXECUTOR_DEPENDENCY_SIGNER_MIXED');
      expect(refused.message).toContain(c.planted);
      expect(existsSync(marker)).toBe(false);
      // Signed by you instead, the same file runs: the refusal is what stopped it.
      p.write(
        `${TODO2}/${c.planted}`,
        signText(c.plantedBody(marker), { itemType: 'tool', extension: plantedExt, signer: own })
          .text,
      );
      const result = await run(p);
      expect(result.status, JSON.stringify(result)).toBe('success');
      expect(existsSync(marker)).toBe(true);
    });
  }
});

describe('assertOneSigner()', () => {
  const tool = makeSigner('author');
  const own = makeSigner('you');
  const other = makeSigner('other');
  const trust = trustSetOf([
    ...tool.trust.values(),
    ...own.trust.values(),
    ...other.trust.values(),
  ]);
  const rule = {
    toolId: 'apps/x/x',
    toolSigner: tool.signer.fingerprint,
    ownKey: own.signer.fingerprint,
    trust,
  };
  const file = (relativePath: string, signer: string | null) => ({
    relativePath,
    absolutePath: `/p/${relativePath}`,
    signer,
  });

  it('accepts the tool’s signer, your key and files pinned by hash', () => {
    expect(() =>
      assertOneSigner(
        [
          file('a.py', tool.signer.fingerprint),
          file('b.py', own.signer.fingerprint),
          file('node_modules/x/index.js', null),
        ],
        rule,
      ),
    ).not.toThrow();
  });

  it('refuses a third key, naming the file and both signers', () => {
    expect(() =>
      assertOneSigner(
        [file('a.py', tool.signer.fingerprint), file('c.py', other.signer.fingerprint)],
        rule,
      ),
    ).toThrow(/c\.py is signed by other \([0-9a-f]{16}\), the tool by author/);
  });

  it('accepts only the tool’s signer when you have no key', () => {
    expect(() =>
      assertOneSigner([file('b.py', own.signer.fingerprint)], { ...rule, ownKey: null }),
    ).toThrow(expect.objectContaining({ code: 'EXECUTOR_DEPENDENCY_SIGNER_MIXED' }));
  });
});
