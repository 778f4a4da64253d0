import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serializeManifest } from '../../src/bundle/index.js';
import { execute } from '../../src/executor/index.js';
import { readSigner, sha256Hex, signText } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { makeExecProject } from '../helpers/exec-project.js';
import { refusal } from '../helpers/refusal.js';

const TOOL_DIR = '.ai/tools/apps/notes';
const SETTINGS = '{"greeting": "hello"}\n';

describe('execute() and a manifest of another bundle', () => {
  it('refuses a file that only another bundle’s signed manifest lists', async () => {
    const p = await makeExecProject();
    // A package (`__init__.py`): the runtime verifies every file of the tool's folder.
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
print(open(os.path.join(os.path.dirname(__file__), "settings.json")).read())
`,
    );
    await p.sign('tool', 'apps/notes/report');
    await p.sign('tool', 'apps/notes/__init__');
    const report = readFileSync(join(p.project, TOOL_DIR, 'report.py'));
    // Trusted key, true hash, but bundle apps/other may not speak for apps/notes.
    const body = serializeManifest({
      bundle: {
        id: 'apps/other',
        version: '1.0.0',
        createdAt: '2026-02-11T00:00:00Z',
        entrypoint: null,
        description: '',
        includes: [],
      },
      // Listing the tool itself is what makes the executor consult this manifest.
      files: new Map([
        [`${TOOL_DIR}/report.py`, { sha256: sha256Hex(report), inlineSigned: true }],
        [`${TOOL_DIR}/settings.json`, { sha256: sha256Hex(SETTINGS), inlineSigned: false }],
      ]),
    });
    const signer = await readSigner(keyDir(p.spaces));
    p.write(
      '.ai/bundles/apps/other/manifest.yaml',
      signText(body, { itemType: 'tool', extension: '.yaml', signer }).text,
    );
    const refused = await refusal(
      execute({ spaces: p.spaces, toolId: 'apps/notes/report', env: p.env }),
    );
    expect(refused.code).toBe('INTEGRITY_UNSIGNED');
    expect(refused.message).toContain('settings.json');
  });
});
