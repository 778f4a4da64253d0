/**
 * Runs a module of the CLI bundle from its code body, with the V8 code cache
 * the build made for it.
 *
 * Node 20 keeps no compiled code between runs of an ES module, and compiling
 * is most of what `rye execute tool` cost once Node had started. So the build
 * (scripts/cli-cached-bodies.mjs) turns dist/cli/main.js and each fast runner
 * (dist/cli/fast/<name>.js, src/cli/fast-path.ts) into two files: the code as
 * one function, `x.body.js`, and in the module's place a small ES module that
 * calls this loader and exports what the body returns. It then runs each once
 * on a scratch project and keeps V8's compiled code for every function that
 * run compiled, in `x.body.<arch>-v8-<version>.cache` (scripts/cli-code-cache.mjs).
 * bin/rye.js (CommonJS, src/cli/entry.ts) loads the bodies through here
 * directly; a module imported as an ES module gets the same exports.
 *
 * A cache is code, as trusted as the JavaScript beside it: written by the
 * build only, never at run time, and found from the module's own location,
 * never from a project, the environment or the working folder. It is used
 * only when it was made from these exact bytes: its header holds the SHA-256
 * of the body it was made from and of its own V8 data, and both must match
 * (V8 itself checks only the source's length, its own version and its flags).
 * Anything else (no cache for this V8, a header that does not match, V8
 * refusing it under other flags) compiles the body as if there were no cache:
 * the same code runs.
 */
import { isAscii } from 'node:buffer';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Script } from 'node:vm';
import { pathOfFileUrl, sha256Bytes } from '../platform/index.js';

/** What became of the code cache: used, none for this V8, not made from these bytes, refused by V8. */
export type CodeCacheState = 'used' | 'absent' | 'stale' | 'rejected';

export interface BodyCodeCache {
  readonly state: CodeCacheState;
  /** Where this V8's cache for the body is (whether or not it exists). */
  readonly path: string;
  /** A cache file's bytes for the body as compiled so far (the build writes it to `path`). */
  create(): Buffer;
}

export interface CachedBody {
  /** What the body returns: the module's exports, by name. */
  readonly exports: Readonly<Record<string, unknown>>;
  readonly codeCache: BodyCodeCache;
}

/**
 * The body's signature: `require` for Node's built-ins and packages (resolved
 * from the runner's file), the runner's URL (its `import.meta.url`) and a
 * dynamic import that resolves from the runner's folder.
 */
type BodyFunction = (
  require: NodeJS.Require,
  metaUrl: string,
  importer: (specifier: string) => Promise<unknown>,
) => Record<string, unknown>;

const MAGIC = Buffer.from('rye-v8c1', 'latin1');
const DIGEST_BYTES = 32;
const HEADER_BYTES = MAGIC.length + 2 * DIGEST_BYTES;

/**
 * The body's `require`. A body asks it for Node's built-ins only, which
 * `process.getBuiltinModule` (Node 20.16 and later) hands out directly;
 * anything else, or an older Node, goes to `createRequire(moduleUrl)`, made
 * on first use: making it costs ~0.4 ms at every command's start.
 */
function bodyRequire(moduleUrl: string): NodeJS.Require {
  const builtin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  let made: NodeJS.Require | undefined;
  const required = (id: string): unknown => {
    const found = builtin?.(id);
    return found !== undefined ? found : (made ??= createRequire(moduleUrl))(id);
  };
  return required as NodeJS.Require;
}

/** The cache file for a body under this process's V8 and architecture. */
export function codeCachePath(bodyPath: string): string {
  return `${bodyPath.replace(/\.js$/, '')}.${process.arch}-v8-${process.versions.v8}.cache`;
}

/** The cache file's bytes: magic, SHA-256 of the body, SHA-256 of the V8 data, the V8 data. */
export function frameCodeCache(bodyDigest: Buffer, data: Buffer): Buffer {
  return Buffer.concat([MAGIC, bodyDigest, sha256Bytes(data), data]);
}

/** The V8 data of a cache file made from the body with this digest, or why there is none. */
export function readCodeCache(
  path: string,
  bodyDigest: Buffer,
): { readonly data: Buffer } | { readonly state: 'absent' | 'stale' } {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    // Missing or unreadable: compile, as without a cache.
    return { state: 'absent' };
  }
  if (file.length <= HEADER_BYTES || !file.subarray(0, MAGIC.length).equals(MAGIC))
    return { state: 'stale' };
  const made = file.subarray(MAGIC.length, MAGIC.length + DIGEST_BYTES);
  const dataDigest = file.subarray(MAGIC.length + DIGEST_BYTES, HEADER_BYTES);
  const data = file.subarray(HEADER_BYTES);
  if (!made.equals(bodyDigest) || !sha256Bytes(data).equals(dataDigest)) return { state: 'stale' };
  return { data };
}

/** Every body this process has loaded, by the path of its file (one load each). */
const LOADED = Symbol.for('rye.cli.cachedBodies');

function loaded(): Map<string, CachedBody> {
  const g = globalThis as { [LOADED]?: Map<string, CachedBody> };
  return (g[LOADED] ??= new Map());
}

/**
 * Where a body's code says it is in stack traces: its path, unless the
 * build's warm-up (scripts/cli-code-cache.mjs) sets `globalThis[SCRIPT_NAME]`
 * to name it by its place in the package. V8 11 (Node 20) keeps the name a
 * cache was made under, not the path a later run compiles it from, so every
 * frame of a cached body would otherwise show the build machine's folder.
 * Newer V8 shows the run's own path either way.
 */
const SCRIPT_NAME = Symbol.for('rye.cli.cacheScriptName');

function scriptName(bodyPath: string): string {
  const name = (globalThis as { [SCRIPT_NAME]?: (path: string) => string })[SCRIPT_NAME];
  return name === undefined ? bodyPath : name(bodyPath);
}

/** The body file of the module at `moduleUrl` (`x.js` → `x.body.js`), when it has one. */
export function bodyPathOf(moduleUrl: string): string | undefined {
  if (!moduleUrl.startsWith('file:') || !moduleUrl.endsWith('.js')) return undefined;
  const path = pathOfFileUrl(`${moduleUrl.slice(0, -'.js'.length)}.body.js`);
  return loaded().has(path) || existsSync(path) ? path : undefined;
}

/** The bodies loaded so far in this process (the build writes their caches from these). */
export function loadedBodies(): ReadonlyMap<string, CachedBody> {
  return loaded();
}

/**
 * The module at `moduleUrl`, from its body (`x.body.js` beside it) compiled
 * with its code cache when one was made from it. Loaded once per process,
 * whether through this call from the CommonJS entry (src/cli/entry.ts) or
 * from the module's own file, imported as an ES module: both get the same
 * exports. `importer` is the body's `import()`: relative specifiers resolve
 * from the module's folder.
 */
export function loadCachedBody(
  moduleUrl: string,
  importer: (url: string) => Promise<unknown>,
): CachedBody {
  const bodyPath = pathOfFileUrl(`${moduleUrl.replace(/\.js$/, '')}.body.js`);
  const known = loaded().get(bodyPath);
  if (known !== undefined) return known;
  const source = readFileSync(bodyPath);
  const bodyDigest = sha256Bytes(source);
  const path = codeCachePath(bodyPath);
  const cached = readCodeCache(path, bodyDigest);
  // esbuild writes ASCII but for some comments: ASCII is read without decoding.
  const script = new Script(source.toString(isAscii(source) ? 'latin1' : 'utf8'), {
    filename: scriptName(bodyPath),
    ...('data' in cached ? { cachedData: cached.data } : {}),
  });
  const state: CodeCacheState =
    'state' in cached ? cached.state : script.cachedDataRejected === true ? 'rejected' : 'used';
  const body = script.runInThisContext() as BodyFunction;
  const exports = body(bodyRequire(moduleUrl), moduleUrl, (specifier) =>
    importer(new URL(specifier, moduleUrl).href),
  );
  const result: CachedBody = {
    exports,
    codeCache: {
      state,
      path,
      create: () => frameCodeCache(bodyDigest, script.createCachedData()),
    },
  };
  loaded().set(bodyPath, result);
  return result;
}
