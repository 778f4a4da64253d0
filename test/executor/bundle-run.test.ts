import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBundle } from '../../src/bundle/index.js';
import { execute } from '../../src/executor/index.js';
import { readSigner } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { refusal } from '../helpers/refusal.js';

const TOOL_DIR = '.ai/tools/apps/notes';

/** A multi-file tool whose JSON config is unsigned, and an app folder it reads. */
async function notesProject(): Promise<ExecProject> {
  const p = await makeExecProject();
  p.write(`${TOOL_DIR}/__init__.py`, '');
  p.write(`${TOOL_DIR}/settings.json`, '{"greeting": "hello"}\n');
  p.write(
    `${TOOL_DIR}/report.py`,
    `import json, os, sys
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "apps/notes"
__tool_description__ = "report"
here = os.path.dirname(__file__)
settings = json.load(open(os.path.join(here, "settings.json")))
verified = json.load(open(os.environ["RYE_VERIFIED_MANIFEST"]))["files"]
app_file = os.path.join(sys.argv[sys.argv.index("--project-path") + 1], "notes-app", "index.html")
print(json.dumps({"greeting": settings["greeting"], "app_file_listed": os.path.realpath(app_file) in verified}))
`,
  );
  p.write('notes-app/index.html', '<h1>notes</h1>\n');
  await p.sign('tool', 'apps/notes/report');
  await p.sign('tool', 'apps/notes/__init__');
  return p;
}

const run = (p: ExecProject) =>
  execute({ spaces: p.spaces, toolId: 'apps/notes/report', env: p.env });

describe('execute() with a bundle manifest', () => {
  it('refuses an unsigned config file that no manifest lists', async () => {
    const p = await notesProject();
    const refused = await refusal(run(p));
    expect(refused.code).toBe('INTEGRITY_UNSIGNED');
    expect(refused.message).toContain('settings.json');
  });

  it('accepts files authenticated by the verified manifest and hands the app files to the run', async () => {
    const p = await notesProject();
    await createBundle({
      spaces: p.spaces,
      bundleId: 'apps/notes',
      version: '1.0.0',
      includes: ['notes-app'],
      signer: await readSigner(keyDir(p.spaces)),
    });
    const result = await run(p);
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(result.data).toEqual({ greeting: 'hello', app_file_listed: true });
  });

  it('refuses the config again once it no longer matches the manifest', async () => {
    const p = await notesProject();
    await createBundle({
      spaces: p.spaces,
      bundleId: 'apps/notes',
      version: '1.0.0',
      includes: ['notes-app'],
      signer: await readSigner(keyDir(p.spaces)),
    });
    writeFileSync(join(p.project, TOOL_DIR, 'settings.json'), '{"greeting": "pwned"}\n');
    expect((await refusal(run(p))).code).toBe('INTEGRITY_UNSIGNED');
  });

  it('ignores a manifest signed by a key nobody trusts', async () => {
    const p = await notesProject();
    const { makeSigner } = await import('../helpers/keys.js');
    await createBundle({
      spaces: p.spaces,
      bundleId: 'apps/notes',
      version: '1.0.0',
      includes: ['notes-app'],
      signer: makeSigner().signer,
    });
    expect((await refusal(run(p))).code).toBe('INTEGRITY_UNSIGNED');
  });
});
