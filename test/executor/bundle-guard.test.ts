import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createBundle } from '../../src/bundle/index.js';
import { execute, type ExecuteResult } from '../../src/executor/index.js';
import { readSigner } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { BUILT_SYSTEM, makeExecProject, type ExecProject } from '../helpers/exec-project.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

// Attack class 9: a tool of a bundle loads code from the bundle's app folder.
// Every way Node loads code must run only bytes the signed manifest lists.
// The tools may write the project's markers/, where an attacking module would
// leave its marker.

/** Loads each `{how, file}` in turn (file: project-relative or absolute) and reports what it got. */
const LOADER_TOOL = `export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'apps/guard';
export const __tool_description__ = 'load app modules';
export const __permissions__ = { write: ['markers'] };
import { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { projectPath, readParams, respond } from '@rye/runtime';
const require = createRequire(import.meta.url);
const inWorker = (file) =>
  new Promise((resolve, reject) => {
    const code = 'require(' + JSON.stringify(file) + ')';
    const worker = new Worker(code, { eval: true, execArgv: [], env: {} });
    worker.on('error', reject);
    worker.on('exit', resolve);
  });
const values = [];
for (const { how, file } of readParams().loads) {
  const target = isAbsolute(file) ? file : join(projectPath(), file);
  let loaded;
  if (how === 'require') loaded = require(target);
  else if (how === 'import') loaded = await import(pathToFileURL(target).href);
  else if (how === 'dlopen') {
    const addon = { exports: {} };
    process.dlopen(addon, target);
    loaded = addon.exports;
  } else if (how === 'worker') loaded = { value: 'worker exited ' + (await inWorker(target)) };
  values.push(loaded.value ?? loaded.default?.value ?? typeof loaded.Database);
}
respond({ values });
`;

const TOOL_ID = 'apps/guard/load';

/** The same for one `require`, from TypeScript that the TypeScript loader compiles to CommonJS. */
const TS_TOOL = `export const __version__ = '1.0.0';
export const __tool_type__ = 'typescript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'apps/guard';
export const __tool_description__ = 'require an app module from TypeScript compiled to CommonJS';
export const __permissions__ = { write: ['markers'] };
import { join } from 'node:path';
import { projectPath, readParams, respond } from '@rye/runtime';
const { file } = readParams() as { file: string };
respond({ values: [require(join(projectPath() as string, file)).value] });
`;
const TS_TOOL_ID = 'apps/guard/ts-load';
const NODE = process.env['RYE_NODE'] ?? 'node';
/** Node 22.15+/23.5+ (module.registerHooks) run the imports of a require()d ES module through the hooks. */
const HOOKS_SEE_REQUIRE_ESM =
  execFileSync(NODE, ['-p', "typeof require('node:module').registerHooks"], {
    encoding: 'utf8',
  }).trim() === 'function';
const CC = spawnSync('cc', ['--version']).status === 0;
/** The addon below is built for the Node running the tests. */
const TOOL_NODE_ABI = execFileSync(NODE, ['-p', 'process.versions.modules'], {
  encoding: 'utf8',
}).trim();
const SQLITE_ADDON = join(
  dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
  'build/Release/better_sqlite3.node',
);

interface Guarded {
  readonly p: ExecProject;
  /** Any attacking module writes this file when it runs. */
  readonly marker: string;
  /**
   * A folder outside the bundle's app folders: beside the project with the
   * sandbox off, in the project (where a sandbox can see it) with the sandbox on.
   */
  readonly outside: string;
  readonly load: (...loads: [how: string, file: string][]) => Promise<ExecuteResult>;
  /** CommonJS / ESM module text that writes the marker. */
  readonly evilCjs: string;
  readonly evilEsm: string;
}

/** A project whose bundle apps/guard lists `files` under app/, and the loader tool. */
async function guarded(
  files: Record<string, string | Uint8Array>,
  options: { includeNodeModules?: boolean; sandbox?: 'on' | 'off' } = {},
): Promise<Guarded> {
  const off = options.sandbox === 'off';
  const p = await makeExecProject(off ? { sandbox: 'off' } : {});
  p.write(`.ai/tools/${TOOL_ID}.mjs`, LOADER_TOOL);
  p.write(`.ai/tools/${TS_TOOL_ID}.ts`, TS_TOOL);
  await p.sign('tool', 'apps/guard/*');
  for (const [rel, content] of Object.entries(files)) p.write(`app/${rel}`, content);
  await createBundle({
    spaces: p.spaces,
    bundleId: 'apps/guard',
    version: '1.0.0',
    includes: ['app'],
    signer: await readSigner(keyDir(p.spaces)),
    includeNodeModules: options.includeNodeModules === true,
  });
  mkdirSync(join(p.project, 'markers'));
  const marker = join(p.project, 'markers', 'marker');
  const outside = join(off ? p.root : p.project, 'outside');
  mkdirSync(outside);
  return {
    p,
    marker,
    outside,
    evilCjs: `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\nmodule.exports = { value: 'evil' };\n`,
    evilEsm: `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nexport const value = 'evil';\n`,
    load: (...loads) =>
      execute({
        spaces: p.spaces,
        toolId: TOOL_ID,
        params: { loads: loads.map(([how, file]) => ({ how, file })) },
        env: p.env,
      }),
  };
}

/** The run failed with `Cannot load …: <why> [<code>]` and no attacking code ran. */
function expectRefused(g: Guarded, result: ExecuteResult, code: string, why: string): void {
  expect(existsSync(g.marker), 'an attacking module ran').toBe(false);
  expect(result.status, JSON.stringify(result.data)).toBe('error');
  const output = JSON.stringify(result.data);
  expect(output).toContain(`[${code}]`);
  expect(output).toContain(why);
}

const CJS = (value: string) => `module.exports = { value: ${JSON.stringify(value)} };\n`;
const ESM = (value: string) => `export const value = ${JSON.stringify(value)};\n`;

describe('bundle app folders under require()', () => {
  it('loads listed files through require and import (.js, .cjs, .mjs, .json)', async () => {
    const g = await guarded(
      {
        'lib.js': CJS('js'),
        'lib.cjs': CJS('cjs'),
        'view.mjs': ESM('mjs'),
        'data.json': '{"value": "json"}\n',
        // Listed only because the bundle was made with its app dependencies (issue 11).
        'node_modules/dep/index.js': CJS('dep'),
      },
      { includeNodeModules: true },
    );
    const result = await g.load(
      ['require', 'app/lib.js'],
      ['require', 'app/lib.cjs'],
      ['require', 'app/data.json'],
      ['import', 'app/view.mjs'],
      ['import', 'app/lib.cjs'],
      ['import', 'app/lib.js'],
      ['require', 'app/node_modules/dep/index.js'],
    );
    expect(result.status, JSON.stringify(result.data)).toBe('success');
    expect(result.data).toEqual({ values: ['js', 'cjs', 'json', 'mjs', 'cjs', 'js', 'dep'] });
  });

  it('refuses an unlisted .js, .cjs and .json loaded by require (createRequire)', async () => {
    const g = await guarded({ 'lib.js': CJS('js') });
    g.p.write('app/evil.js', g.evilCjs);
    g.p.write('app/evil.cjs', g.evilCjs);
    g.p.write('app/evil.json', '{"value": "evil"}\n');
    const unlisted = 'it is not listed in the bundle manifest';
    for (const file of ['app/evil.js', 'app/evil.cjs', 'app/evil.json']) {
      expectRefused(g, await g.load(['require', file]), 'BUNDLE_FILE_UNAUTHENTICATED', unlisted);
    }
  });

  it('refuses a listed .cjs changed after the bundle was signed, by require and by import', async () => {
    const g = await guarded({ 'lib.cjs': CJS('cjs') });
    writeFileSync(join(g.p.project, 'app/lib.cjs'), g.evilCjs);
    const why = 'its content differs from the bundle manifest';
    expectRefused(g, await g.load(['require', 'app/lib.cjs']), 'INTEGRITY_HASH_MISMATCH', why);
    expectRefused(g, await g.load(['import', 'app/lib.cjs']), 'INTEGRITY_HASH_MISMATCH', why);
  });

  it('refuses an unlisted native addon before the dynamic linker opens it', async () => {
    const g = await guarded({ 'lib.js': CJS('js') });
    g.p.write('app/evil.node', Buffer.from('not an ELF file, never opened\n'));
    for (const how of ['require', 'dlopen']) {
      const result = await g.load([how, 'app/evil.node']);
      expectRefused(g, result, 'BUNDLE_FILE_UNAUTHENTICATED', 'app/evil.node');
      expect(JSON.stringify(result.data)).not.toContain('ELF');
    }
  });

  it.skipIf(!CC)('refuses a compiled addon whose constructor would run on load', async () => {
    const g = await guarded({ 'addon.node': Buffer.from('placeholder addon\n') });
    const source = join(g.outside, 'evil.c');
    writeFileSync(
      source,
      `#include <stdio.h>\n__attribute__((constructor)) static void ran(void) {\n  FILE *f = fopen(${JSON.stringify(g.marker)}, "w");\n  if (f) fclose(f);\n}\n`,
    );
    const built = join(g.outside, 'evil.node');
    execFileSync('cc', ['-shared', '-fPIC', '-o', built, source]);
    copyFileSync(built, join(g.p.project, 'app/evil.node'));
    copyFileSync(built, join(g.p.project, 'app/addon.node'));
    expectRefused(
      g,
      await g.load(['dlopen', 'app/evil.node']),
      'BUNDLE_FILE_UNAUTHENTICATED',
      'it is not listed in the bundle manifest',
    );
    expectRefused(
      g,
      await g.load(['require', 'app/addon.node']),
      'INTEGRITY_HASH_MISMATCH',
      'its content differs from the bundle manifest',
    );
  });

  it.skipIf(TOOL_NODE_ABI !== process.versions.modules)('loads a listed native addon', async () => {
    const g = await guarded({ 'sqlite.node': readFileSync(SQLITE_ADDON) });
    const result = await g.load(['require', 'app/sqlite.node']);
    expect(result.status, JSON.stringify(result.data)).toBe('success');
    expect(result.data).toEqual({ values: ['function'] });
  });

  it('serves the verified bytes to the TypeScript loader of a CommonJS .ts tool', async () => {
    const g = await guarded({ 'view.ts': "export const value: string = 'ts';\n" });
    const run = (file: string) =>
      execute({ spaces: g.p.spaces, toolId: TS_TOOL_ID, params: { file }, env: g.p.env });
    const ok = await run('app/view.ts');
    expect(ok.data).toEqual({ values: ['ts'] });
    writeFileSync(
      join(g.p.project, 'app/view.ts'),
      `require('node:fs').writeFileSync(${JSON.stringify(g.marker)}, 'ran');\nexport const value: string = 'evil';\n`,
    );
    expectRefused(g, await run('app/view.ts'), 'INTEGRITY_HASH_MISMATCH', 'app/view.ts');
  });

  it("checks the imports of a require()d ES module, or refuses require(esm) where hooks can't see them", async () => {
    const g = await guarded({
      'view.mjs': "export { value } from './part.mjs';\n",
      'part.mjs': ESM('part'),
    });
    const ok = await g.load(['import', 'app/view.mjs']);
    expect(ok.data).toEqual({ values: ['part'] });
    writeFileSync(join(g.p.project, 'app/part.mjs'), g.evilEsm);
    const result = await g.load(['require', 'app/view.mjs']);
    if (HOOKS_SEE_REQUIRE_ESM) {
      expectRefused(g, result, 'INTEGRITY_HASH_MISMATCH', 'app/part.mjs');
    } else {
      expectRefused(g, result, 'BUNDLE_GUARD_UNSUPPORTED', 'import() it instead');
    }
  });

  it('guards worker threads, eval workers with an empty execArgv and env included', async () => {
    const g = await guarded({ 'lib.js': CJS('js') });
    g.p.write('app/evil.js', g.evilCjs);
    const ok = await g.load(['worker', 'app/lib.js']);
    expect(ok.data).toEqual({ values: ['worker exited 0'] });
    expectRefused(
      g,
      await g.load(['worker', 'app/evil.js']),
      'BUNDLE_FILE_UNAUTHENTICATED',
      'app/evil.js',
    );
  });
});

// Both ways: a sandbox shows nothing beside the project, so there the links lead
// to a folder of the project outside app/; with the sandbox off, beside it.
describe.each(['on', 'off'] as const)(
  'bundle app folders and symbolic links (sandbox %s)',
  (sandbox) => {
    it('refuses a link inside an app folder that leads outside it, by import and require', async () => {
      const g = await guarded({ 'lib.js': CJS('js') }, { sandbox });
      writeFileSync(join(g.outside, 'evil.mjs'), g.evilEsm);
      writeFileSync(join(g.outside, 'evil.cjs'), g.evilCjs);
      symlinkSync(join(g.outside, 'evil.mjs'), join(g.p.project, 'app/link.mjs'));
      symlinkSync(join(g.outside, 'evil.cjs'), join(g.p.project, 'app/link.cjs'));
      const why = "outside the bundle's app folders";
      for (const load of [
        ['import', 'app/link.mjs'],
        ['require', 'app/link.cjs'],
        ['import', 'app/link.cjs'],
      ] as [string, string][]) {
        expectRefused(g, await g.load(load), 'INTEGRITY_SYMLINK_ESCAPE', why);
      }
    });

    it('refuses a listed module swapped for a link outside, even to the same bytes', async () => {
      const view = "export { value } from './part.mjs';\n";
      const g = await guarded({ 'view.mjs': view, 'part.mjs': ESM('part') }, { sandbox });
      // The same bytes outside: their relative imports would resolve outside the guard.
      writeFileSync(join(g.outside, 'view.mjs'), view);
      writeFileSync(join(g.outside, 'part.mjs'), g.evilEsm);
      rmSync(join(g.p.project, 'app/view.mjs'));
      symlinkSync(join(g.outside, 'view.mjs'), join(g.p.project, 'app/view.mjs'));
      expectRefused(
        g,
        await g.load(['import', 'app/view.mjs']),
        'INTEGRITY_SYMLINK_ESCAPE',
        'app/view.mjs',
      );
    });

    it('refuses a link outside that points into an app folder at an unlisted file', async () => {
      const g = await guarded({ 'lib.js': CJS('js') }, { sandbox });
      g.p.write('app/evil.cjs', g.evilCjs);
      const link = join(g.outside, 'entry.cjs');
      symlinkSync(join(g.p.project, 'app/evil.cjs'), link);
      for (const how of ['require', 'import']) {
        expectRefused(
          g,
          await g.load([how, link]),
          'BUNDLE_FILE_UNAUTHENTICATED',
          'it is not listed in the bundle manifest',
        );
      }
    });

    it('refuses a package "imports" target swapped for a link outside (no path in the specifier)', async () => {
      const g = await guarded(
        {
          'package.json': '{"name": "guard-app", "imports": {"#part": "./part.mjs"}}\n',
          'view.mjs': "export { value } from '#part';\n",
          'part.mjs': ESM('part'),
        },
        { sandbox },
      );
      const ok = await g.load(['import', 'app/view.mjs']);
      expect(ok.data).toEqual({ values: ['part'] });
      writeFileSync(join(g.outside, 'part.mjs'), g.evilEsm);
      rmSync(join(g.p.project, 'app/part.mjs'));
      symlinkSync(join(g.outside, 'part.mjs'), join(g.p.project, 'app/part.mjs'));
      expectRefused(
        g,
        await g.load(['import', 'app/view.mjs']),
        'INTEGRITY_SYMLINK_ESCAPE',
        'app/part.mjs',
      );
    });

    it('guards the app folders when the project itself is reached through a link', async () => {
      const g = await guarded({ 'lib.cjs': CJS('cjs') }, { sandbox });
      g.p.write('app/evil.cjs', g.evilCjs);
      const linked = join(g.outside, 'project-link');
      symlinkSync(g.p.project, linked);
      const spaces = { ...g.p.spaces, project: linked };
      const run = (file: string) =>
        execute({
          spaces,
          toolId: TOOL_ID,
          params: { loads: [{ how: 'require', file }] },
          env: g.p.env,
        });
      const ok = await run('app/lib.cjs');
      expect(ok.data).toEqual({ values: ['cjs'] });
      expectRefused(
        g,
        await run('app/evil.cjs'),
        'BUNDLE_FILE_UNAUTHENTICATED',
        'it is not listed in the bundle manifest',
      );
    });
  },
);

describe('bundle app folders and package.json', () => {
  it('refuses a module whose package.json was changed to send an import into node_modules', async () => {
    const g = await guarded({
      'package.json': '{"name": "guard-app", "imports": {"#part": "./part.mjs"}}\n',
      'view.mjs': "export { value } from '#part';\n",
      'part.mjs': ESM('part'),
    });
    writeFileSync(
      join(g.p.project, 'app/package.json'),
      '{"name": "guard-app", "imports": {"#part": "dep"}}\n',
    );
    g.p.write('app/node_modules/dep/package.json', '{"name": "dep", "exports": "./index.mjs"}\n');
    g.p.write('app/node_modules/dep/index.mjs', g.evilEsm);
    expectRefused(
      g,
      await g.load(['import', 'app/view.mjs']),
      'INTEGRITY_HASH_MISMATCH',
      'app/package.json',
    );
  });

  it('refuses a listed module below an unlisted package.json', async () => {
    const g = await guarded({ 'lib/index.js': CJS('js') });
    g.p.write('app/lib/package.json', '{"type": "commonjs"}\n');
    expectRefused(
      g,
      await g.load(['require', 'app/lib/index.js']),
      'BUNDLE_FILE_UNAUTHENTICATED',
      'app/lib/package.json',
    );
  });
});

describe('bundle app folders and node_modules', () => {
  /** A listed app module importing the bare specifier `dep`, from require and from import. */
  const APP = {
    'main.cjs': "module.exports = { value: require('dep').value };\n",
    'main.mjs': "import dep from 'dep';\nexport const value = dep.value;\n",
  };

  it('refuses a package planted in an app folder’s node_modules (dependency-free bundle)', async () => {
    const g = await guarded(APP);
    g.p.write('app/node_modules/dep/package.json', '{"name": "dep", "main": "index.js"}\n');
    g.p.write('app/node_modules/dep/index.js', g.evilCjs);
    for (const main of ['app/main.cjs', 'app/main.mjs']) {
      const result = await g.load([main.endsWith('.cjs') ? 'require' : 'import', main]);
      expectRefused(g, result, 'BUNDLE_FILE_UNAUTHENTICATED', 'app/node_modules/dep/');
    }
  });

  it('loads listed dependencies, and refuses one changed or added after signing', async () => {
    const dep = { 'node_modules/dep/package.json': '{"name": "dep"}\n' };
    const g = await guarded(
      { ...APP, ...dep, 'node_modules/dep/index.js': CJS('dep') },
      { includeNodeModules: true },
    );
    const ok = await g.load(['require', 'app/main.cjs'], ['import', 'app/main.mjs']);
    expect(ok.status, JSON.stringify(ok.data)).toBe('success');
    expect(ok.data).toEqual({ values: ['dep', 'dep'] });

    g.p.write('app/node_modules/other/index.js', g.evilCjs);
    const added = await g.load(['require', 'app/node_modules/other/index.js']);
    expectRefused(g, added, 'BUNDLE_FILE_UNAUTHENTICATED', 'it is not listed');
    writeFileSync(join(g.p.project, 'app/node_modules/dep/index.js'), g.evilCjs);
    const changed = await g.load(['require', 'app/main.cjs']);
    expectRefused(g, changed, 'INTEGRITY_HASH_MISMATCH', 'app/node_modules/dep/index.js');
  });

  // Both ways, as for the links above.
  it.each(['on', 'off'] as const)(
    'refuses a node_modules package link leading out of the app folder (sandbox %s)',
    async (sandbox) => {
      const g = await guarded(APP, { sandbox });
      writeFileSync(join(g.outside, 'package.json'), '{"name": "dep"}\n');
      writeFileSync(join(g.outside, 'index.js'), g.evilCjs);
      mkdirSync(join(g.p.project, 'app/node_modules'), { recursive: true });
      symlinkSync(g.outside, join(g.p.project, 'app/node_modules/dep'));
      const result = await g.load(['require', 'app/main.cjs']);
      expectRefused(g, result, 'INTEGRITY_SYMLINK_ESCAPE', "outside the bundle's app folders");
    },
  );
});

describe('the node runtime library without a readable manifest', () => {
  const register = pathToFileURL(
    join(BUILT_SYSTEM, '.ai/tools/rye/core/runtimes/lib/node/register.mjs'),
  ).href;

  function runWith(env: Record<string, string>) {
    const t = makeTempSpaces(); // node is spawned directly here: no rye, no sandbox
    const marker = join(t.root, 'marker');
    t.write('app/lib.cjs', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
    t.write(
      'tool.mjs',
      "import { createRequire } from 'node:module';\ncreateRequire(import.meta.url)('./app/lib.cjs');\n",
    );
    const result = spawnSync(NODE, ['--import', register, join(t.project, 'tool.mjs')], {
      cwd: t.project,
      encoding: 'utf8',
      env: {
        ...process.env,
        RYE_VERIFIED_ROOTS: JSON.stringify([join(t.project, 'app')]),
        RYE_VERIFIED_MANIFEST: join(t.root, 'missing.json'),
        ...env,
      },
    });
    return { ...result, ran: existsSync(marker) };
  }

  it('fails closed: nothing under the roots loads', () => {
    const result = runWith({});
    expect(result.ran).toBe(false);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('[BUNDLE_FILE_UNAUTHENTICATED]');
    expect(result.stderr).toContain('the verified manifest cannot be read');
  });

  it('refuses to start with roots that are not a JSON list of absolute paths', () => {
    const result = runWith({ RYE_VERIFIED_ROOTS: '["app"]' });
    expect(result.ran).toBe(false);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('RYE_VERIFIED_ROOTS is not a JSON list of absolute paths');
  });
});
