#!/usr/bin/env node
// Builds the `rye` binary's code: src/cli/main.ts bundled by esbuild into
// dist/cli/, split so each command's code is a chunk loaded only when the
// command runs (main.ts imports every command dynamically). Start-up pays for
// a handful of files instead of ~90 modules resolved one by one.
//
// - Native and optional modules stay external, loaded from node_modules as
//   before: better-sqlite3 (a compiled addon) and pg (optional, a server's).
// - Code that finds files from its own location keeps working: packageRoot()
//   walks up from dist/cli/ to package.json as it did from dist/src/, and
//   createRequire(import.meta.url) resolves ajv and tsx from the same
//   node_modules.
// - The library build (dist/src, tsc) is untouched: it is the public API and
//   what tools import as @rye/core.
// - The system space's YAML tools (runtimes, primitives) are compiled in
//   already parsed, keyed by the SHA-256 of each body (see
//   src/items/metadata/precompiled-yaml.ts): `rye execute` runs no YAML parser
//   for them. Run after scripts/build-system.mjs, from its signed output.
// - Imports through a domain's door go straight to the module behind it
//   (scripts/cli-bundle-doors.mjs): a command loads the modules it uses, not
//   every module behind each door it names.
// - Node built-ins are loaded through require, not import: an ESM import of
//   one builds a facade that reads all its exports (scripts/cli-bundle-builtins.mjs).
// - Third-party code copied into the bundle keeps its licence: every package
//   the bundle holds has its licence text in dist/cli/THIRD-PARTY-LICENSES.txt.
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { bodyWithoutSignature } from '../dist/src/index.js';
import { builtinsThroughRequire } from './cli-bundle-builtins.mjs';
import { doorsToModules, throughDoors } from './cli-bundle-doors.mjs';
import { mergeStaticChunks } from './cli-bundle-merge.mjs';
import { makeCodeCaches } from './cli-code-cache.mjs';
import { asCachedBodies } from './cli-cached-bodies.mjs';
import { metadataKey } from '../dist/src/items/metadata/precompiled-yaml.js';
import { readToolYaml } from '../dist/src/items/metadata/tool-metadata.js';
import { walkFiles } from './walk-files.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = join(root, 'dist', 'cli');
const EXTERNAL = ['better-sqlite3', 'pg'];
/**
 * The commands src/cli/fast-path.ts runs without commander (src/cli/fast/<name>.ts
 * each) and whether their build splits off what they import on demand: one
 * file for the verifiers (~130 KB) and for `bundle verify`; `execute` imports the executor, thread
 * tools, bundles and directive planning on demand (3.9 MB as one file).
 */
const FAST_RUNNERS = { 'verify-file': false, verify: false, execute: true, 'bundle-verify': false };

/**
 * In the `execute` runner's build, the on-demand imports every tool run makes
 * become static ones (file → the specifiers): each dynamic import is a chunk
 * boundary, and these four cut what a tool run loads into ~10 more files.
 * The imports it makes only for some tools (bundles, thread tools) stay apart.
 */
const STATIC_IN_EXECUTE = {
  'src/cli/commands/execute-tool-command.ts': ['../operation-context.js', './execute-tool-run.js'],
  'src/items/metadata/read-metadata.ts': ['./tool-code-metadata.js', './tool-mapping.js'],
};

const precompiled = precompileSystemYaml(join(root, 'dist', 'system', '.ai', 'tools'));

rmSync(outdir, { recursive: true, force: true });
/** What every build of the CLI shares. */
const common = {
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  chunkNames: 'chunks/[name]-[hash]',
  // Bundled CommonJS packages call require() for Node built-ins; an ES module has none.
  banner: {
    js: "import { createRequire as __ryeCreateRequire } from 'node:module'; const require = __ryeCreateRequire(import.meta.url);",
  },
  // A string literal (the table's JSON), parsed on first lookup: an object
  // define would make esbuild wrap every module in a lazy initialiser.
  define: { RYE_PRECOMPILED_YAML: JSON.stringify(JSON.stringify(precompiled)) },
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
};
const main = await build({
  ...common,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir,
  plugins: [fastRunnersApart(), doorsToModules(root)],
});
// The fast path's runners (src/cli/fast-path.ts), one build each: a runner's
// file holds what its command imports, not the chunks cut for all commands,
// because each file loaded costs more than the bytes it saves
// (docs/performance.md). A runner and the main build never load each other's
// files: a process runs one or the other's copy of a module, never both.
const fast = [];
for (const [name, splitting] of Object.entries(FAST_RUNNERS))
  fast.push(
    await build({
      ...common,
      entryPoints: { [name]: `src/cli/fast/${name}.ts` },
      outdir: join(outdir, 'fast'),
      splitting,
      plugins: [
        ...(name === 'execute' ? [staticImports(STATIC_IN_EXECUTE)] : []),
        doorsToModules(root),
      ],
    }),
  );
const metafile = mergeMetafiles([main.metafile, ...fast.map((b) => b.metafile)]);
checkRelativeImports(metafile);
dropHelperOnlyImports(metafile);
// `rye execute tool` loads its runner as one file, not ten (scripts/cli-bundle-merge.mjs).
const merged = await mergeStaticChunks({
  root,
  metafile,
  entry: 'dist/cli/fast/execute.js',
  dir: 'dist/cli/fast',
  banner: common.banner.js,
  external: EXTERNAL,
});
checkImportsResolve(join(outdir, 'fast'));
for (const path of walkFiles(outdir)) {
  if (!path.endsWith('.js')) continue;
  writeFileSync(path, builtinsThroughRequire(readFileSync(path, 'utf8'), relative(root, path)));
}
// main.js and each fast runner as a function body run with a V8 code cache
// (scripts/cli-cached-bodies.mjs), from a CommonJS entry (src/cli/entry.ts).
const cached = [
  join(outdir, 'main.js'),
  ...Object.keys(FAST_RUNNERS).map((n) => join(outdir, 'fast', `${n}.js`)),
];
const bodies = await asCachedBodies({
  root,
  paths: cached,
  banner: common.banner.js,
  loader: join(root, 'src', 'cli', 'cached-body.ts'),
});
for (const path of cached)
  writeFileSync(path, builtinsThroughRequire(readFileSync(path, 'utf8'), relative(root, path)));
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/entry.ts'],
  outfile: join(outdir, 'entry.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
});
const warmUpsFailed = await makeCodeCaches({ root, cliDir: outdir });

if (process.env.RYE_CLI_METAFILE)
  writeFileSync(process.env.RYE_CLI_METAFILE, JSON.stringify(metafile));
writeFileSync(join(outdir, 'THIRD-PARTY-LICENSES.txt'), licences(metafile));
const files = [...walkFiles(outdir)].filter((p) => p.endsWith('.js')).length;
console.log(
  `cli bundle: ${files} files in ${relative(root, outdir)}${merged === 0 ? '' : ` (the execute runner with its ${merged} chunks in one file)`}, ${Object.keys(precompiled).length} system YAML tools precompiled, ${bodies.length} files run with a code cache`,
);
if (warmUpsFailed.length > 0)
  console.log(
    `cli bundle: these runners' warm-ups failed, so their code caches hold less: ${warmUpsFailed.join('; ')}`,
  );

/**
 * The main build leaves `import('./fast/<name>.js')` of src/cli/fast-runners.ts
 * as written, to the files the runners' own builds write: fast-runners.ts is
 * bundled into dist/cli/main.js, so the path resolves from there
 * (checkRelativeImports makes sure it does).
 */
function fastRunnersApart() {
  const fastPath = join(root, 'src', 'cli', 'fast-runners.ts');
  return {
    name: 'fast-runners-apart',
    setup(b) {
      b.onResolve({ filter: /^\.\/fast\/[a-z-]+\.js$/ }, (args) => {
        if (args.importer !== fastPath) return undefined;
        const name = args.path.slice('./fast/'.length, -'.js'.length);
        if (!Object.hasOwn(FAST_RUNNERS, name))
          throw new Error(`${args.path}: not a fast runner scripts/build-cli.mjs builds`);
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * Rewrites `await import('<specifier>')` into a namespace imported statically,
 * for the listed specifiers of the listed files (and the doors as
 * doorsToModules does); fails the build when one is no longer there.
 */
function staticImports(files) {
  const src = join(root, 'src') + sep;
  const paths = new Map(Object.entries(files).map(([f, specs]) => [join(root, f), specs]));
  return {
    name: 'static-imports',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const specifiers = paths.get(args.path);
        if (specifiers === undefined) return undefined;
        let text = throughDoors(readFileSync(args.path, 'utf8'), args.path, src, new Map());
        const header = specifiers.map((specifier, i) => {
          const call = `await import('${specifier}')`;
          if (!text.includes(call)) throw new Error(`${args.path}: no ${call} to make static`);
          text = text.replaceAll(call, `__ryeStatic${i}`);
          return `import * as __ryeStatic${i} from '${specifier}';\n`;
        });
        return { contents: header.join('') + text, loader: 'ts' };
      });
    },
  };
}

/** Every relative import left in an output file must name a file the builds wrote. */
function checkRelativeImports(meta) {
  const written = new Set(Object.keys(meta.outputs).map((o) => resolve(root, o)));
  for (const [output, { imports }] of Object.entries(meta.outputs))
    for (const i of imports) {
      if (!i.path.startsWith('.')) continue;
      const target = i.external ? resolve(root, dirname(output), i.path) : resolve(root, i.path);
      if (!written.has(target))
        throw new Error(`${output} imports ${i.path}, which no CLI build wrote`);
    }
}

/**
 * Removes each bare `import "./chunk.js";` of a chunk that holds esbuild's
 * helpers alone (no input of ours): such a chunk only declares functions, so
 * importing it for effect does nothing but load a file (main.js did, for every
 * command). A file that uses a helper imports it by name and still loads it.
 */
function dropHelperOnlyImports(meta) {
  for (const [output, { imports }] of Object.entries(meta.outputs)) {
    if (!output.endsWith('.js')) continue;
    const path = join(root, output);
    let text = readFileSync(path, 'utf8');
    for (const i of imports) {
      if (i.kind !== 'import-statement' || i.external) continue;
      if (Object.keys(meta.outputs[i.path]?.inputs ?? { unknown: 1 }).length > 0) continue;
      let specifier = relative(dirname(path), join(root, i.path)).split(sep).join('/');
      if (!specifier.startsWith('.')) specifier = `./${specifier}`;
      text = text.replace(`\nimport ${JSON.stringify(specifier)};\n`, '\n');
    }
    writeFileSync(path, text);
  }
}

/** Every relative import in the files under `dir` (after merging) names a file that exists. */
function checkImportsResolve(dir) {
  // Imports as esbuild prints them: `} from "./x.js";` ends a multi-line one,
  // a dynamic one is double-quoted (a comment's `import('./x')` is not matched).
  const IMPORT =
    /^(?:import|export|\}).* from (["'])(\.{1,2}\/[^"']+)\1;$|^import (["'])(\.{1,2}\/[^"']+)\3;$|[^\w.]import\(()"(\.{1,2}\/[^"]+)"\)/gm;
  for (const path of walkFiles(dir)) {
    if (!path.endsWith('.js')) continue;
    for (const match of readFileSync(path, 'utf8').matchAll(IMPORT)) {
      const specifier = match[2] ?? match[4] ?? match[6];
      if (!existsSync(resolve(dirname(path), specifier)))
        throw new Error(`${relative(root, path)} imports ${specifier}, which does not exist`);
    }
  }
}

/** One metafile from several builds' (inputs and outputs by path). */
function mergeMetafiles(metas) {
  return {
    inputs: Object.assign({}, ...metas.map((m) => m.inputs)),
    outputs: Object.assign({}, ...metas.map((m) => m.outputs)),
  };
}

/**
 * key → JSON text of the document, for every YAML tool under `dir` (signed
 * files: the key is over the body without its signature line, as the executor
 * computes it). A document JSON cannot carry exactly (non-finite numbers, -0)
 * fails the build rather than change meaning.
 */
function precompileSystemYaml(dir) {
  const table = {};
  for (const path of walkFiles(dir)) {
    const extension = extname(path);
    if (!['.yaml', '.yml'].includes(extension.toLowerCase())) continue;
    const body = bodyWithoutSignature(readFileSync(path, 'utf8'), 'tool', extension);
    const document = readToolYaml(body, path);
    const json = JSON.stringify(document);
    if (!isDeepStrictEqual(JSON.parse(json), document))
      throw new Error(`${relative(root, path)}: its YAML document does not survive JSON`);
    table[metadataKey('tool', extension, body)] = json;
  }
  return table;
}

/** The licence text of every package with code in the bundle, by name. */
function licences(metafile) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const parts = input.split(/[\\/]/);
    const at = parts.lastIndexOf('node_modules');
    if (at === -1) continue;
    const nameParts = parts[at + 1]?.startsWith('@') ? 2 : 1;
    const dir = join(root, ...parts.slice(0, at + 1 + nameParts));
    if (!packages.has(dir)) packages.set(dir, packageLicence(dir));
  }
  const sections = [...packages.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    'The rye CLI bundle (dist/cli) holds code from these packages, under these licences.\n\n' +
    sections.map((p) => `== ${p.name}@${p.version} (${p.license})\n\n${p.text.trim()}\n`).join('\n')
  );
}

function packageLicence(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  const author = typeof pkg.author === 'string' ? pkg.author : (pkg.author?.name ?? 'its authors');
  return {
    name: pkg.name,
    version: pkg.version,
    license: pkg.license ?? 'see text',
    text:
      file === undefined
        ? `The package ships no licence file; its package.json says ${pkg.license} by ${author}.`
        : readFileSync(join(dir, file), 'utf8'),
  };
}
