import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serializeManifest } from '../../src/bundle/index.js';
import { execute } from '../../src/executor/index.js';
import { readSigner, sha256Hex, signText } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { makeExecProject } from '../helpers/exec-project.js';
import { refusal } from '../helpers/refusal.js';

// The lane rule at run time (the rule itself: bundle-lane.test.ts). The tools
// of this suite write proof markers in the project's markers/, which they
// declare in `write`: they run sandboxed.

const TOOL_DIR = '.ai/tools/apps/notes';
const SETTINGS = '{"greeting": "hello"}\n';

/**
 * A python package tool of bundle apps/notes whose unsigned settings.json only
 * a manifest can cover, and a manifest of apps/notes signed by the user's own
 * (trusted) key listing those files plus `stray` with its true bytes.
 */
async function notesWithManifest(stray: string | null) {
  const p = await makeExecProject();
  const marker = join(p.project, 'markers', 'marker');
  p.write(`${TOOL_DIR}/__init__.py`, '');
  p.write(`${TOOL_DIR}/settings.json`, SETTINGS);
  p.write(
    `${TOOL_DIR}/report.py`,
    `import json, os
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "apps/notes"
__tool_description__ = "report"
__permissions__ = {"write": ["markers"]}
open(${JSON.stringify(marker)}, "w").write("ran")
print(open(os.path.join(os.path.dirname(__file__), "settings.json")).read())
`,
  );
  await p.sign('tool', 'apps/notes/report');
  await p.sign('tool', 'apps/notes/__init__');
  const files = new Map<string, { sha256: string; inlineSigned: boolean }>();
  for (const [rel, inlineSigned] of [
    [`${TOOL_DIR}/__init__.py`, true],
    [`${TOOL_DIR}/report.py`, true],
    [`${TOOL_DIR}/settings.json`, false],
  ] as const) {
    files.set(rel, { sha256: sha256Hex(readFileSync(join(p.project, rel))), inlineSigned });
  }
  if (stray !== null) {
    p.write(stray, 'EVIL=1\n');
    files.set(stray, { sha256: sha256Hex('EVIL=1\n'), inlineSigned: false });
  }
  const body = serializeManifest({
    bundle: {
      id: 'apps/notes',
      version: '1.0.0',
      createdAt: '2026-02-11T00:00:00Z',
      entrypoint: null,
      description: '',
      includes: stray?.startsWith('notes-app/') === true ? ['notes-app'] : [],
    },
    files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1))),
  });
  const signer = await readSigner(keyDir(p.spaces));
  p.write(
    '.ai/bundles/apps/notes/manifest.yaml',
    signText(body, { itemType: 'tool', extension: '.yaml', signer }).text,
  );
  const run = () => execute({ spaces: p.spaces, toolId: 'apps/notes/report', env: p.env });
  return { p, marker, run };
}

describe('execute() and a trusted manifest out of its lane', () => {
  it('runs the tool when its own manifest stays in its lane (control)', async () => {
    const { marker, run } = await notesWithManifest(null);
    const result = await run();
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(existsSync(marker)).toBe(true);
  });

  for (const stray of [
    '.env',
    '.ai/tools/apps/other/evil.py',
    `${TOOL_DIR}/.env`,
    `${TOOL_DIR}/node_modules/dep/index.js`,
  ]) {
    it(`covers nothing when it lists ${stray}: nothing ran`, async () => {
      const { marker, run } = await notesWithManifest(stray);
      const refused = await refusal(run());
      expect(refused.code).toBe('INTEGRITY_UNSIGNED');
      expect(refused.message).toContain('settings.json');
      expect(existsSync(marker), 'the tool ran').toBe(false);
    });
  }
});
