// main.js and the fast runners as function bodies with a V8 code cache
// (scripts/build-cli.mjs).
//
// Node 20 keeps no compiled code for ES modules between runs, and compiling is
// most of what a fast runner costs once Node has started: ~10 ms for the
// `execute` runner's top level and ~15 ms more for the functions a tool run
// calls the first time. A vm.Script can be given V8's compiled code, so each
// such file (one ES module with no static import, after the merge and the
// built-ins pass) is rewritten as one function, `x.body.js`, and in its place
// goes a small ES module that loads it through src/cli/cached-body.ts and
// exports the same names. On-demand chunks still import `./x.js` and get the
// same bindings: one copy of each module, as before.
//
// The rewrite is textual, so it refuses whatever it cannot carry over exactly:
// another import or export statement, `import.meta` other than its URL, a
// dynamic import of anything but a relative string, a name the wrapper uses,
// an exported binding assigned after its declaration (the loading module exports
// the values the body returned), and a body that does not compile.
import { build } from 'esbuild';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { Script } from 'node:vm';
import { nameList } from './cli-bundle-builtins.mjs';

/** The body's parameters (src/cli/cached-body.ts calls it with these). */
const PARAMETERS = ['require', '__rye_meta_url', '__rye_import'];
/** The name the loading module exports the cache's state and maker under. */
export const CODE_CACHE_EXPORT = '__ryeCodeCache';

/**
 * Rewrite each file of `paths` (`x.js`) into `x.body.js` and, in its place, a
 * module that loads it (bundled from `loader`, src/cli/cached-body.ts, with
 * `banner`). Returns the bodies' paths.
 */
export async function asCachedBodies({ root, paths, banner, loader }) {
  const bodies = [];
  for (const path of paths) {
    const file = relative(root, path);
    const { body, exported } = asBody(readFileSync(path, 'utf8'), banner, file);
    for (const specifier of relativeImports(body))
      if (!existsSync(resolve(dirname(path), specifier)))
        throw new Error(`${file} imports ${specifier}, which does not exist`);
    // A top-level await, or anything else a function cannot hold, fails here.
    new Script(body, { filename: `${file} as a body` });
    const bodyPath = path.replace(/\.js$/, '.body.js');
    writeFileSync(bodyPath, body);
    await writeLoadingModule({ root, path, exported, banner, loader });
    bodies.push(bodyPath);
  }
  return bodies;
}

/** `specifier` of every `__rye_import("specifier")` in a body. */
export function relativeImports(body) {
  return [...body.matchAll(/__rye_import\("([^"]+)"\)/g)].map((m) => m[1]);
}

/** The body text of a bundled module and the names it exports ([local, exported] pairs). */
export function asBody(text, banner, file) {
  if (!text.startsWith(banner)) throw new Error(`${file} does not start with the banner`);
  let code = text.slice(banner.length);
  const tail = /\nexport \{([^}]*)\};\n*$/.exec(code);
  if (tail === null) throw new Error(`${file}: no export list at its end`);
  code = code.slice(0, tail.index + 1);
  const exported = nameList(tail[1], file, 'exported');
  if (/^(?:import|export)\b/m.test(code))
    throw new Error(`${file}: an import or export statement a function body cannot hold`);
  for (const name of [...PARAMETERS.slice(1), CODE_CACHE_EXPORT])
    if (code.includes(name)) throw new Error(`${file} already uses ${name}`);
  if (exported.some(([, as]) => as === CODE_CACHE_EXPORT))
    throw new Error(`${file} exports ${CODE_CACHE_EXPORT}`);
  // The banner's `const require` becomes the body's parameter.
  if (/\b(?:var|let|const|function|class)\s+require\b/.test(code))
    throw new Error(`${file} declares its own require`);
  code = code
    .replaceAll('import.meta.url', '__rye_meta_url')
    .replace(/\bimport\("/g, '__rye_import("');
  if (code.includes('import.meta')) throw new Error(`${file}: import.meta other than its url`);
  // `import()` with nothing in it is text (a hint's wording), not a call.
  if (/\bimport\s*\((?!\))/.test(code))
    throw new Error(`${file}: a dynamic import of something other than a relative string`);
  for (const [local] of exported) {
    const writes = assignments(code, local);
    const declared = new RegExp(`(?:^|[\\s;])(?:function\\*?|class)\\s+${escape(local)}\\b`).test(
      code,
    );
    if (writes > (declared ? 0 : 1))
      throw new Error(`${file}: ${local} is exported and assigned after its declaration`);
  }
  const result = exported.map(([local, as]) => (local === as ? local : `${as}: ${local}`));
  // Line 1 keeps the banner's place: the body's line numbers are the module's.
  const body = `(function (${PARAMETERS.join(', ')}) {"use strict";${code}return { ${result.join(', ')} };\n})\n`;
  return { body, exported: exported.map(([, as]) => as) };
}

/** How many assignments to `name` the code makes (`=`, compound, `++`/`--`), declarations with a value included. */
function assignments(code, name) {
  const n = escape(name);
  const assign = new RegExp(
    `(?<![\\w$.])${n}\\s*(?:\\*\\*|<<|>>>?|&&|\\|\\||\\?\\?|[-+*/%&|^])?=(?![=>])`,
    'g',
  );
  const step = new RegExp(`(?<![\\w$.])${n}\\s*(?:\\+\\+|--)|(?:\\+\\+|--)\\s*${n}(?![\\w$])`, 'g');
  return (code.match(assign)?.length ?? 0) + (code.match(step)?.length ?? 0);
}

const escape = (s) => s.replaceAll('$', '\\$');

/** The ES module in the runner's place: loads the body and exports what it returns. */
async function writeLoadingModule({ root, path, exported, banner, loader }) {
  const contents = [
    `import { loadCachedBody } from ${JSON.stringify(loader)};`,
    `const body = loadCachedBody(import.meta.url, (url) => import(url));`,
    `export const { ${exported.join(', ')} } = body.exports;`,
    `export const ${CODE_CACHE_EXPORT} = body.codeCache;`,
  ].join('\n');
  await build({
    stdin: { contents, resolveDir: root, sourcefile: relative(root, path), loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile: path,
    allowOverwrite: true,
    banner: { js: banner },
    legalComments: 'none',
    logLevel: 'warning',
  });
}
