'use strict';
// The bundle app-folder guard of the node runtime. When the executor runs a
// tool that belongs to a bundle it sets RYE_VERIFIED_ROOTS (the bundle's app
// folders, absolute) and RYE_VERIFIED_MANIFEST (a JSON file
// {"files": {"<absolute path>": "<sha256 of the raw bytes>"}}). Code under a
// root may run only when the bytes Node runs are listed there with that hash.
//
// A module is guarded when its real path, or any path it was reached by (the
// lexical path of an import or require, or a path through a symbolic link
// found inside a root), lies inside a root — `node_modules` below a root
// included: a package planted at `<app>/node_modules/x` would otherwise run
// unchecked and win over the project's copy, so an app's dependencies load
// only when the bundle lists them (`rye bundle create --include-node-modules`).
// A guarded module must also
// *live* inside a root (else its relative imports would resolve outside the
// guard), be listed under one of those paths with the hash of its bytes, and
// every package.json between it and its root (Node reads them for "type",
// "imports", "exports" and "main") must be listed with its hash too.
//
// This file is CommonJS so that it can also be a `--require` preload: Node
// runs preloads in every worker thread, eval workers included, while `--import`
// preloads skip eval workers. install() guards the thread it runs in: module
// hooks for import (hooks.mjs), and the CommonJS loader for require, which the
// hooks of module.register() do not see on Node 20.
//
// Refusals are Errors whose message is `Cannot load <path>: <why> [<CODE>]`
// and whose `code` is one of the Rye error codes below.
const { createHash, timingSafeEqual } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const UNLISTED = 'BUNDLE_FILE_UNAUTHENTICATED';
const CHANGED = 'INTEGRITY_HASH_MISMATCH';
const ESCAPE = 'INTEGRITY_SYMLINK_ESCAPE';
const UNSUPPORTED = 'BUNDLE_GUARD_UNSUPPORTED';
const HEX64 = /^[0-9a-f]{64}$/;
// Captured before install() patches fs.readFileSync: the guard's own reads.
const readFileSync = fs.readFileSync;

function refusal(code, file, why) {
  const error = new Error(`Cannot load ${file}: ${why} [${code}]`);
  error.code = code;
  return error;
}

/** The real path of `file`, or `file` itself when it cannot be resolved (Node cannot load it either). */
function realpathOr(file) {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return file;
  }
}

/**
 * The guard for RYE_VERIFIED_ROOTS / RYE_VERIFIED_MANIFEST, or null when no
 * roots are set. `links` (from another thread's guard) skips the folder scan.
 *
 * @throws Error when the roots are not a JSON list of absolute paths (the
 *   runtime then fails to start: fail closed).
 */
function createGuard({ roots, manifest, links }) {
  if (typeof roots !== 'string' || roots === '') return null;
  let list;
  try {
    list = JSON.parse(roots);
  } catch {
    list = null;
  }
  if (!Array.isArray(list) || !list.every((r) => typeof r === 'string' && path.isAbsolute(r))) {
    throw new Error(
      'Cannot start the Rye node runtime: RYE_VERIFIED_ROOTS is not a JSON list of absolute paths',
    );
  }
  if (list.length === 0) return null;
  const pairs = list.map((r) => ({ lexical: path.resolve(r), real: realpathOr(path.resolve(r)) }));
  const areas = [...new Set(pairs.flatMap((p) => [p.lexical, p.real]))];
  const { files, error: manifestError } = readManifest(manifest, pairs);
  const guard = { areas, files, manifestError, links: [], scopesChecked: new Set() };
  guard.links = Array.isArray(links) ? links : scanLinks(guard, pairs);
  return guard;
}

/** Manifest entries by absolute path, also under each root's real path (a symlinked project folder). */
function readManifest(manifest, pairs) {
  const files = new Map();
  let doc;
  try {
    doc = JSON.parse(readFileSync(manifest, 'utf8'));
  } catch (error) {
    // Fail closed: roots to guard but no readable manifest means nothing there may load.
    return { files, error: error instanceof Error ? error.message : String(error) };
  }
  const listed = doc !== null && typeof doc === 'object' ? doc.files : undefined;
  if (listed === null || typeof listed !== 'object' || Array.isArray(listed)) {
    return { files, error: 'it has no "files" object' };
  }
  for (const [key, value] of Object.entries(listed)) {
    if (typeof value !== 'string' || !HEX64.test(value.toLowerCase())) continue;
    const file = path.resolve(key);
    const sha = value.toLowerCase();
    files.set(file, sha);
    for (const { lexical, real } of pairs) {
      if (real !== lexical && file.startsWith(lexical + path.sep))
        files.set(real + file.slice(lexical.length), sha);
    }
  }
  return { files, error: null };
}

/** The root-relative part of `file` when it is guarded by `area`, else null. */
function relativeIn(area, file) {
  if (file === area) return '';
  if (!file.startsWith(area + path.sep)) return null;
  return file.slice(area.length + 1);
}

/** True when `file` is inside a root (its `node_modules` folders included). */
function inside(guard, file) {
  return guard.areas.some((area) => relativeIn(area, file) !== null);
}

/**
 * Symbolic links inside the roots (not followed; node_modules walked too: its
 * package links are how a bare specifier leaves a root) whose
 * target lies outside them: a module under such a target is reachable by a
 * path inside a root even when no lexical path was seen (a bare specifier
 * mapped by package.json "imports"/"exports", a directory's "main").
 * Links made after this scan are seen only through lexical paths.
 */
function scanLinks(guard, pairs) {
  const found = [];
  const pending = pairs.map((p) => p.lexical);
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // not a folder (a root may be a file), or unreadable: nothing Node could list there either
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        const target = realpathOr(full);
        if (target !== full && !inside(guard, target)) found.push({ link: full, target });
      } else if (entry.isDirectory()) {
        pending.push(full);
      }
    }
  }
  return found;
}

/** The paths through scanned links by which `real` is reachable from inside a root. */
function linkAliases(guard, real) {
  const aliases = [];
  for (const { link, target } of guard.links) {
    const rel = relativeIn(target, real);
    if (rel !== null) aliases.push(rel === '' ? link : path.join(link, rel));
  }
  return aliases;
}

function guardedPaths(guard, real, lexicals) {
  const paths = [real, ...lexicals.map((p) => path.resolve(p)), ...linkAliases(guard, real)];
  return paths.some((p) => inside(guard, p)) ? [...new Set(paths)] : null;
}

function sameHash(expected, actual) {
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(actual, 'hex'));
}

/**
 * Check the bytes Node is about to run from `real` (its real path), reached by
 * `lexicals`. Returns false when the module is not guarded, true when it may run.
 *
 * @throws Error BUNDLE_FILE_UNAUTHENTICATED (not listed, or the manifest is
 *   unreadable), INTEGRITY_HASH_MISMATCH, INTEGRITY_SYMLINK_ESCAPE.
 */
function checkBytes(guard, real, lexicals, bytes, scope = true) {
  const paths = guardedPaths(guard, real, lexicals);
  if (paths === null) return false;
  if (!inside(guard, real)) {
    const via = paths.find((p) => inside(guard, p));
    throw refusal(ESCAPE, via, `it leads to ${real}, outside the bundle's app folders`);
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  const expected = paths.map((p) => guard.files.get(p)).filter((sha) => sha !== undefined);
  if (!expected.some((sha) => sameHash(sha, actual))) {
    if (expected.length > 0)
      throw refusal(CHANGED, real, 'its content differs from the bundle manifest');
    const why =
      guard.manifestError === null
        ? 'it is not listed in the bundle manifest'
        : `the verified manifest cannot be read (${guard.manifestError})`;
    throw refusal(UNLISTED, real, why);
  }
  if (scope) checkScope(guard, real);
  return true;
}

/** Every package.json from the module's folder up to its root must be listed with its hash. */
function checkScope(guard, real) {
  const seen = [];
  for (
    let dir = path.dirname(real);
    inside(guard, dir) && !guard.scopesChecked.has(dir);
    dir = path.dirname(dir)
  ) {
    seen.push(dir);
    const file = path.join(dir, 'package.json');
    let bytes = null;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      if (error.code !== 'ENOENT' && error.code !== 'ENOTDIR')
        throw refusal(UNLISTED, file, `it cannot be read (${error.code})`);
    }
    // Its own scope is this walk: no recursion.
    if (bytes !== null) checkBytes(guard, realpathOr(file), [file], bytes, false);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of seen) guard.scopesChecked.add(dir);
}

/**
 * Read and check a file Node is about to load by path. Returns null when it
 * is not guarded, else the verified bytes (read once, from its real path).
 *
 * @throws Error as checkBytes, or when a guarded file cannot be read.
 */
function verifyFile(guard, file, lexicals = []) {
  const real = realpathOr(path.resolve(file));
  if (guardedPaths(guard, real, [file, ...lexicals]) === null) return null;
  const bytes = readFileSync(real);
  checkBytes(guard, real, [file, ...lexicals], bytes);
  return bytes;
}

// --- Installing the guard in a thread --------------------------------------

const STATE = Symbol.for('rye.node-runtime.guard');

/**
 * Set up this thread for Rye tools, once: register hooks.mjs ('@rye/runtime',
 * '@rye/core', and the guard for import), map '@rye/runtime' for require too,
 * and with RYE_VERIFIED_ROOTS set, guard the CommonJS loader, native addons
 * and worker threads.
 *
 * @throws Error when RYE_VERIFIED_ROOTS is malformed (see createGuard).
 */
function install() {
  if (globalThis[STATE] !== undefined) return;
  const nodeModule = require('node:module');
  const { pathToFileURL } = require('node:url');
  const settings = {
    RYE_VERIFIED_ROOTS: process.env.RYE_VERIFIED_ROOTS,
    RYE_VERIFIED_MANIFEST: process.env.RYE_VERIFIED_MANIFEST,
    RYE_LIBRARY_URL: process.env.RYE_LIBRARY_URL,
  };
  const guard = createGuard({
    roots: settings.RYE_VERIFIED_ROOTS,
    manifest: settings.RYE_VERIFIED_MANIFEST,
  });
  globalThis[STATE] = { guard };
  // The hooks run in a thread of their own on Node 20 (about 40 ms of CPU per
  // process). Without a guard or '@rye/core' to serve, and with this library
  // mounted as the package '@rye/runtime' (the snapshot's
  // node_modules/@rye/runtime, found by Node's resolution from every tool
  // file), there is nothing for them to do.
  if (guard === null && !settings.RYE_LIBRARY_URL && mountedAsRuntimePackage()) {
    mapRuntimeForRequire(nodeModule.Module);
    return;
  }
  nodeModule.register(pathToFileURL(path.join(__dirname, 'hooks.mjs')).href, {
    data: {
      libraryUrl: settings.RYE_LIBRARY_URL ?? null,
      verifiedRoots: settings.RYE_VERIFIED_ROOTS ?? null,
      verifiedManifest: settings.RYE_VERIFIED_MANIFEST ?? null,
      links: guard === null ? null : guard.links,
    },
  });
  mapRuntimeForRequire(nodeModule.Module);
  if (guard === null) return;
  guardCommonJs(nodeModule, guard);
  guardWorkers(nodeModule, settings);
}

/** Whether this folder is `node_modules/@rye/runtime` (the snapshot's mount of the library). */
function mountedAsRuntimePackage() {
  const runtime = __dirname;
  const scope = path.dirname(runtime);
  return (
    path.basename(runtime) === 'runtime' &&
    path.basename(scope) === '@rye' &&
    path.basename(path.dirname(scope)) === 'node_modules'
  );
}

// On Node 20, register() hooks do not see require(). A .ts tool outside a
// "type": "module" package is compiled to CommonJS by the TypeScript loader,
// so its `import … from '@rye/runtime'` becomes a require(): map it there too.
// (_resolveFilename is the hook point TypeScript loaders themselves patch.)
function mapRuntimeForRequire(Module) {
  const runtimePath = path.join(__dirname, 'rye-tool.mjs');
  const resolveFilename = Module._resolveFilename;
  if (typeof resolveFilename !== 'function') return;
  Module._resolveFilename = function resolveRyeRuntime(request, ...rest) {
    return request === '@rye/runtime' ? runtimePath : resolveFilename.call(this, request, ...rest);
  };
}

function isPathRequest(request) {
  return (
    request === '.' ||
    request === '..' ||
    request.startsWith('./') ||
    request.startsWith('../') ||
    path.isAbsolute(request)
  );
}

/**
 * require() and everything built on it (createRequire, .cjs, .json, .node,
 * require(esm), loaders such as tsx that compile through Module._compile).
 * Module.prototype.load reads and checks a guarded file once, then, while it
 * loads, fs.readFileSync of that exact path returns those verified bytes (the
 * reads of Node's own handlers and of transpilers); _compile accepts only the
 * verified text or a transform of those served bytes, .json is parsed from
 * them, and process.dlopen refuses an addon that does not check.
 */
function guardCommonJs(nodeModule, guard) {
  const { Module } = nodeModule;
  const lexicals = new Map(); // resolved filename -> the paths required by
  const loading = new Map(); // filename being loaded -> { bytes, served }
  const lexicalsOf = (filename) => [...(lexicals.get(filename) ?? [])];
  const verify = (filename) => verifyFile(guard, filename, lexicalsOf(filename));

  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function resolveAndRemember(request, parent, ...rest) {
    const filename = resolveFilename.call(this, request, parent, ...rest);
    if (typeof request === 'string' && typeof filename === 'string' && isPathRequest(request)) {
      const from =
        typeof parent?.filename === 'string' ? path.dirname(parent.filename) : process.cwd();
      const lexical = path.resolve(from, request);
      if (lexical !== filename) lexicals.set(filename, new Set([...lexicalsOf(filename), lexical]));
    }
    return filename;
  };

  const load = Module.prototype.load;
  Module.prototype.load = function loadVerified(filename) {
    const bytes = verify(filename);
    if (bytes === null) return load.call(this, filename);
    const outer = loading.get(filename);
    loading.set(filename, { bytes, served: false });
    try {
      return load.call(this, filename);
    } finally {
      if (outer === undefined) loading.delete(filename);
      else loading.set(filename, outer);
    }
  };

  fs.readFileSync = function readFileSyncServingVerified(file, options) {
    const entry = typeof file === 'string' && loading.size > 0 ? loading.get(file) : undefined;
    if (entry === undefined) return readFileSync.apply(this, arguments);
    entry.served = true;
    const encoding = typeof options === 'string' ? options : options?.encoding;
    return encoding ? entry.bytes.toString(encoding) : Buffer.from(entry.bytes);
  };

  // Node 22.15+/23.5+ (the releases with module.registerHooks) run the imports
  // of an ES module loaded by require() through the register() hooks; older
  // ones link them with the default loader, where no hook sees them.
  const hooksSeeRequireEsm = typeof nodeModule.registerHooks === 'function';
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileVerified(content, filename, format, ...rest) {
    let entry = loading.get(filename);
    if (entry === undefined) {
      const bytes = verify(filename);
      entry = bytes === null ? null : { bytes, served: false };
    }
    if (entry !== null && !entry.served && !sameText(content, entry.bytes)) {
      throw refusal(CHANGED, filename, 'the source being compiled is not the verified content');
    }
    let as = format;
    if (!hooksSeeRequireEsm) {
      if (as === 'module' || as === 'module-typescript') {
        throw refusal(
          UNSUPPORTED,
          filename,
          `Node ${process.versions.node} runs the imports of an ES module loaded by require() around the module hooks: import() it instead`,
        );
      }
      // No syntax detection: it would turn ESM syntax into a require(esm).
      if (as === undefined) as = 'commonjs';
      else if (as === 'typescript') as = 'commonjs-typescript';
    }
    return compile.call(this, content, filename, as, ...rest);
  };

  const json = Module._extensions['.json'];
  Module._extensions['.json'] = function jsonVerified(module, filename) {
    const bytes = loading.get(filename)?.bytes ?? verify(filename);
    if (bytes === null) return json.call(this, module, filename);
    const text = bytes.toString('utf8');
    try {
      module.exports = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch (error) {
      error.message = `${filename}: ${error.message}`;
      throw error;
    }
  };

  // A native addon cannot be loaded from bytes: the dynamic linker opens the
  // path again. What remains is a race: the file can be replaced between this
  // check and that open, and the shared libraries the addon links are not checked.
  const dlopen = process.dlopen;
  process.dlopen = function dlopenVerified(module, filename, ...rest) {
    const file = String(filename);
    if (!loading.has(file)) verify(file);
    return dlopen.call(this, module, file, ...rest);
  };
}

function sameText(content, bytes) {
  if (typeof content !== 'string') return Buffer.isBuffer(content) && content.equals(bytes);
  const text = bytes.toString('utf8');
  return content === text || (text.charCodeAt(0) === 0xfeff && content === text.slice(1));
}

/**
 * Worker threads run this file as a `--require` preload (the only preload an
 * eval worker runs) with the guard's settings in their environment, whatever
 * execArgv and env the tool passes.
 */
function guardWorkers(nodeModule, settings) {
  const threads = require('node:worker_threads');
  const Worker = threads.Worker;
  const vars = Object.fromEntries(
    Object.entries(settings).filter(([, value]) => typeof value === 'string'),
  );
  class GuardedWorker extends Worker {
    constructor(filename, options = {}) {
      const execArgv = ['--require', __filename, ...(options?.execArgv ?? process.execArgv)];
      const env =
        options?.env === threads.SHARE_ENV
          ? options.env
          : { ...(options?.env ?? process.env), ...vars };
      super(filename, { ...options, execArgv, env });
    }
  }
  threads.Worker = GuardedWorker;
  nodeModule.syncBuiltinESMExports();
}

// Loaded by `--require` (a worker started by GuardedWorker): guard this thread.
// Imported by hooks.mjs or register.mjs: only the functions.
if (module.parent?.id === 'internal/preload') install();

module.exports = { createGuard, checkBytes, verifyFile, realpathOr, install };
