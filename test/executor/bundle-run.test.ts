import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBundle } from '../../src/bundle/index.js';
import { execute } from '../../src/executor/index.js';
import { readSigner, type Signer } from '../../src/integrity/index.js';
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

async function bundleNotes(p: ExecProject, signer?: Signer): Promise<void> {
  await createBundle({
    spaces: p.spaces,
    bundleId: 'apps/notes',
    version: '1.0.0',
    includes: ['notes-app'],
    signer: signer ?? (await readSigner(keyDir(p.spaces))),
  });
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
    await bundleNotes(p);
    const result = await run(p);
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(result.data).toEqual({ greeting: 'hello', app_file_listed: true });
  });

  it('refuses the config again once it no longer matches the manifest', async () => {
    const p = await notesProject();
    await bundleNotes(p);
    writeFileSync(join(p.project, TOOL_DIR, 'settings.json'), '{"greeting": "pwned"}\n');
    expect((await refusal(run(p))).code).toBe('INTEGRITY_UNSIGNED');
  });

  it('ignores a manifest signed by a key nobody trusts', async () => {
    const p = await notesProject();
    const { makeSigner } = await import('../helpers/keys.js');
    await bundleNotes(p, makeSigner().signer);
    expect((await refusal(run(p))).code).toBe('INTEGRITY_UNSIGNED');
  });
});

describe('node tools loading bundle app files', () => {
  async function appProject(): Promise<ExecProject> {
    const p = await makeExecProject();
    p.write(
      '.ai/tools/apps/board/render.mjs',
      `export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'apps/board';
export const __tool_description__ = 'render the board';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectPath, readParams, respond } from '@rye/runtime';
const { module } = readParams();
const lib = await import(pathToFileURL(join(projectPath(), 'board-app', module)).href);
respond({ html: lib.render() });
`,
    );
    p.write('board-app/view.mjs', "export const render = () => '<ul></ul>';\n");
    p.write('board-app/node_modules/dep/index.mjs', 'export const x = 1;\n');
    await p.sign('tool', 'apps/board/render');
    await createBundle({
      spaces: p.spaces,
      bundleId: 'apps/board',
      version: '1.0.0',
      includes: ['board-app'],
      signer: await readSigner(keyDir(p.spaces)),
    });
    return p;
  }
  const render = (p: ExecProject, module: string) =>
    execute({ spaces: p.spaces, toolId: 'apps/board/render', params: { module }, env: p.env });

  it('loads an app module the verified manifest lists', async () => {
    const p = await appProject();
    const result = await render(p, 'view.mjs');
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(result.data).toEqual({ html: '<ul></ul>' });
  });

  it('refuses an app module changed after the bundle was signed, and one never listed', async () => {
    const p = await appProject();
    writeFileSync(join(p.project, 'board-app/view.mjs'), "export const render = () => 'pwned';\n");
    const changed = await render(p, 'view.mjs');
    expect(changed.status).toBe('error');
    expect(JSON.stringify(changed.data)).toContain('its content differs from the bundle manifest');
    p.write('board-app/extra.mjs', "export const render = () => 'extra';\n");
    const unlisted = await render(p, 'extra.mjs');
    expect(JSON.stringify(unlisted.data)).toContain('it is not listed in the bundle manifest');
  });
});
