// One file for what a fast runner always loads (scripts/build-cli.mjs).
//
// esbuild cuts a runner's build into one chunk per set of entries sharing its
// modules: the `execute` runner shares its modules with each of its on-demand
// imports (thread tools, bundles, the YAML reader, …) in a different
// combination, so `rye execute tool` loaded ten files. Each ES module file is
// resolved, read through the thread pool (four trips) and linked on its own:
// measured on this machine under load, ~38 ms to import the ten files against
// ~21 ms for the same code in one. Here the runner and the chunks it imports
// statically are bundled into one file in the runner's place, which every file
// that imported one of those chunks imports instead: one copy of each module
// still, so a class or a cache is shared by the runner and its on-demand
// imports as before.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { walkFiles } from './walk-files.mjs';

/**
 * Merge `entry` (an output path, as the metafile names it) and the chunks it
 * imports statically into one file written in the entry's place; rewrite every
 * output of `dir` that imported one of those chunks to import the entry.
 * `banner` is the line every output starts with (written once). Returns the
 * number of chunks merged into the entry.
 */
export async function mergeStaticChunks({ root, metafile, entry, dir, banner, external }) {
  const chunks = [...staticClosure(metafile, entry)].filter((o) => o !== entry);
  if (chunks.length === 0) return 0;
  const hot = [entry, ...chunks];
  // A name exported by two chunks would be ambiguous through `export *`.
  const exporter = new Map();
  for (const o of hot)
    for (const name of metafile.outputs[o].exports) {
      if (exporter.has(name))
        throw new Error(`${o} and ${exporter.get(name)} both export ${name}: cannot merge them`);
      exporter.set(name, o);
    }
  // Each chunk carries the banner: merged, it is written once. The `// <source
  // path>` line esbuild puts above each module's code is made a legal comment,
  // which the second pass keeps, and turned back after it.
  for (const o of hot) {
    const path = join(root, o);
    const text = readFileSync(path, 'utf8');
    if (!text.startsWith(banner)) throw new Error(`${o} does not start with the banner`);
    writeFileSync(path, text.slice(banner.length).replace(SOURCE_LINE, '//!$1'));
  }
  const paths = new Set(hot.map((o) => join(root, o)));
  const result = await build({
    stdin: {
      contents: hot.map((o) => `export * from ${JSON.stringify(join(root, o))};`).join('\n'),
      resolveDir: root,
      sourcefile: 'merged.js',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    outfile: join(root, entry),
    banner: { js: banner },
    legalComments: 'inline',
    logLevel: 'warning',
    plugins: [
      {
        // Only the merged chunks are bundled: anything else they import stays as written.
        name: 'only-merged-chunks',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === 'entry-point') return undefined;
            const path = args.path.startsWith('.') ? join(args.resolveDir, args.path) : args.path;
            if (args.kind === 'import-statement' && paths.has(path)) return { path };
            // Left as written: it is resolved from the entry's folder, so
            // a chunk's `./x.js` becomes `./chunks/x.js`.
            if (!args.path.startsWith('.')) return { path: args.path, external: true };
            const target = relative(dirname(join(root, entry)), path);
            return { path: target.startsWith('.') ? target : `./${target}`, external: true };
          });
        },
      },
    ],
    external,
  });
  const merged = join(root, entry);
  writeFileSync(merged, result.outputFiles[0].text.replace(LEGAL_SOURCE_LINE, '//$1'));
  for (const o of chunks) rmSync(join(root, o));
  // Every output that imported a merged chunk imports the entry instead.
  const names = chunks.map((o) => basename(o).replace(/[.]/g, '\\.'));
  const specifier = new RegExp(`(["'])\\./(?:[\\w./-]*/)?(?:${names.join('|')})\\1`, 'g');
  for (const path of walkFiles(join(root, dir))) {
    if (!path.endsWith('.js') || path === merged) continue;
    const before = readFileSync(path, 'utf8');
    const target = relative(dirname(path), merged);
    const after = before.replace(
      specifier,
      (_, quote) => `${quote}${target.startsWith('.') ? target : `./${target}`}${quote}`,
    );
    if (after !== before) writeFileSync(path, after);
  }
  return chunks.length;
}

/** The comment esbuild writes above each module's code: `// src/…`, `// node_modules/…`. */
const SOURCE_LINE = /^\/\/( (?:src|node_modules)\/\S+)$/gm;
const LEGAL_SOURCE_LINE = /^\/\/!( (?:src|node_modules)\/\S+)$/gm;

/** The outputs `entry` imports statically, directly or not, itself included. */
function staticClosure(metafile, entry) {
  const seen = new Set();
  const todo = [entry];
  while (todo.length > 0) {
    const o = todo.pop();
    if (seen.has(o)) continue;
    seen.add(o);
    for (const i of metafile.outputs[o].imports)
      if (i.kind === 'import-statement' && !i.external) todo.push(i.path);
  }
  return seen;
}
