// Module hooks registered by register.mjs. `resolve` maps two specifiers and
// passes everything else on unchanged. `load` authenticates modules loaded from
// a bundle's app folders (RYE_VERIFIED_ROOTS): the bytes Node is about to run
// must be listed, with the same SHA-256, in the verified manifest the executor
// wrote (RYE_VERIFIED_MANIFEST); anything else is refused. Other modules are
// untouched (the tool's own folder was verified before the spawn).
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNTIME_SPECIFIER = '@rye/runtime';
const RUNTIME_URL = new URL('./rye-tool.mjs', import.meta.url).href;
const LIBRARY_SPECIFIER = '@rye/core';
let libraryUrl = null;
let roots = [];
let verified = null;

export function initialize(data) {
  libraryUrl = typeof data?.libraryUrl === 'string' && data.libraryUrl !== '' ? data.libraryUrl : null;
  if (typeof data?.verifiedRoots === 'string' && data.verifiedRoots !== '') {
    roots = JSON.parse(data.verifiedRoots);
    // Fail closed: roots to guard but no readable manifest means nothing there may load.
    try {
      verified = JSON.parse(readFileSync(data.verifiedManifest, 'utf8')).files ?? {};
    } catch {
      verified = {};
    }
  }
}

function guarded(path) {
  if (path.split(sep).includes('node_modules')) return false;
  return roots.some((root) => path === root || path.startsWith(root + sep));
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (roots.length === 0 || !url.startsWith('file:')) return result;
  let path = fileURLToPath(url);
  try {
    path = realpathSync(path);
  } catch {
    // unreadable: Node has already failed or will
  }
  if (!guarded(path)) return result;
  // Hash the bytes Node is about to run (not a second read of the file).
  const bytes = result.source ?? readFileSync(path);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (verified[path] !== sha256) {
    const why = verified[path] === undefined ? 'it is not listed in the bundle manifest' : 'its content differs from the bundle manifest';
    throw new Error(`rye: refused to load ${path}: ${why}`);
  }
  return result;
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === RUNTIME_SPECIFIER) {
    return { url: RUNTIME_URL, format: 'module', shortCircuit: true };
  }
  if (specifier === LIBRARY_SPECIFIER && libraryUrl !== null) {
    return { url: libraryUrl, format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
