/**
 * The system space's YAML tools come precompiled in the CLI bundle, keyed by
 * the SHA-256 of each body (src/items/metadata/precompiled-yaml.ts): running a
 * Python tool through them loads no YAML parser, and a runtime whose bytes
 * differ from the release's by one byte is parsed, never served from the table.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bodyWithoutSignature, readSigner, signText } from '../../src/integrity/index.js';
import { keyDir, selectItems } from '../../src/items/index.js';
import { metadataKey } from '../../src/items/metadata/precompiled-yaml.js';
import { BUILT_SYSTEM, makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { loadedText, ryeLoading } from '../helpers/loaded-files.js';

const RUNTIME = 'rye/core/runtimes/python_script_runtime';
const PARSER = '\n// src/items/metadata/safe-yaml.ts';

async function pythonTool(): Promise<ExecProject> {
  const p = await makeExecProject();
  p.write(
    '.ai/tools/t/env.py',
    `import json, os
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "${RUNTIME}"
__category__ = "t"
__tool_description__ = "prints one variable"
print(json.dumps({"mark": os.environ.get("RYE_TEST_MARK")}))
`,
  );
  await p.sign('tool', 't/env');
  return p;
}

const execute = (p: ExecProject) =>
  ryeLoading(['execute', 'tool', 't/env', '--project', p.project, '--json'], { env: p.env });

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

describe('precompiled system YAML', () => {
  it('the bundle holds every YAML tool of the built system space, by the hash of its body', () => {
    const bundle = [...walk(join(BUILT_SYSTEM, '..', 'cli'))]
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(f, 'utf8'))
      .find((text) => text.includes('// src/items/metadata/precompiled-yaml.ts'));
    expect(bundle).toBeDefined();
    const yamlTools = [...walk(join(BUILT_SYSTEM, '.ai', 'tools'))].filter((f) =>
      ['.yaml', '.yml'].includes(extname(f)),
    );
    expect(yamlTools.length).toBeGreaterThanOrEqual(5);
    for (const path of yamlTools) {
      const body = bodyWithoutSignature(readFileSync(path, 'utf8'), 'tool', extname(path));
      const hash = metadataKey('tool', extname(path), body).split('\0')[2] ?? '';
      expect(bundle, path).toContain(hash);
    }
  });

  it('rye execute of a Python tool through the shipped runtime loads no YAML parser', async () => {
    const p = await pythonTool();
    const res = await execute(p);
    expect(res.code, res.stdout).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ status: 'success', data: { mark: null } });
    expect(res.files.filter((f) => loadedText(f).includes(PARSER))).toEqual([]);
  });

  it('a runtime edited and re-signed is parsed from its own bytes, not served from the table', async () => {
    const p = await pythonTool();
    const [runtime] = await selectItems(p.spaces, 'tool', RUNTIME, ['system']);
    if (runtime === undefined) throw new Error('no system runtime in the copy');
    const text = readFileSync(runtime.path, 'utf8');
    expect(text).toContain('    PYTHONUNBUFFERED: "1"\n');
    const edited = text.replace(
      '    PYTHONUNBUFFERED: "1"\n',
      '    PYTHONUNBUFFERED: "1"\n    RYE_TEST_MARK: "2"\n',
    );
    // Signed by the user's key, which the test spaces trust (the build key is gone).
    const signer = await readSigner(keyDir(p.spaces));
    writeFileSync(
      runtime.path,
      signText(edited, { itemType: 'tool', extension: '.yaml', signer }).text,
    );
    const res = await execute(p);
    expect(res.code, res.stdout).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ status: 'success', data: { mark: '2' } });
    expect(res.files.filter((f) => loadedText(f).includes(PARSER))).toHaveLength(1);
  });
});
