// Module hooks registered by guard.cjs. `resolve` maps two specifiers, passes
// everything else on unchanged, and remembers the path each relative or
// absolute specifier named (Node resolves symbolic links before `load` sees
// the URL). `load` authenticates modules of a bundle's app folders
// (RYE_VERIFIED_ROOTS): the bytes Node is about to run must be listed, with
// the same SHA-256, in the verified manifest the executor wrote
// (RYE_VERIFIED_MANIFEST), `node_modules` below them included; anything else
// is refused (rules in guard.cjs).
// Other modules are untouched (the tool's own folder was verified before the spawn).
import { fileURLToPath } from 'node:url';
import { checkBytes, createGuard, realpathOr, verifyFile } from './guard.cjs';

const RUNTIME_SPECIFIER = '@rye/runtime';
const RUNTIME_URL = new URL('./rye-tool.mjs', import.meta.url).href;
const LIBRARY_SPECIFIER = '@rye/core';
let libraryUrl = null;
let guard = null;
/** Resolved URL -> the paths specifiers named for it. */
const lexicals = new Map();

export function initialize(data) {
  libraryUrl =
    typeof data?.libraryUrl === 'string' && data.libraryUrl !== '' ? data.libraryUrl : null;
  guard = createGuard({
    roots: data?.verifiedRoots ?? null,
    manifest: data?.verifiedManifest ?? null,
    links: data?.links ?? null,
  });
}

function isPathSpecifier(specifier) {
  return /^(\.\.?(\/|$)|\/|file:)/.test(specifier);
}

function remember(specifier, parentURL, url) {
  if (!url.startsWith('file:') || !isPathSpecifier(specifier)) return;
  let named;
  try {
    const target = new URL(specifier, parentURL);
    if (target.protocol !== 'file:') return;
    named = fileURLToPath(target);
  } catch {
    return; // not a path Node could have read either
  }
  const seen = lexicals.get(url) ?? new Set();
  seen.add(named);
  lexicals.set(url, seen);
}

function asBytes(source) {
  if (typeof source === 'string') return Buffer.from(source, 'utf8');
  if (source instanceof ArrayBuffer || source instanceof SharedArrayBuffer)
    return Buffer.from(source);
  return Buffer.from(source.buffer, source.byteOffset, source.byteLength);
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (guard === null || !url.startsWith('file:')) return result;
  const file = fileURLToPath(url);
  const named = [file, ...(lexicals.get(url) ?? [])];
  if (result.source == null) {
    // Compiled elsewhere (CommonJS by the CommonJS loader, guarded there on
    // the bytes it compiles; an addon by process.dlopen): refuse early here,
    // where the path the specifier named is known.
    verifyFile(guard, file, named);
  } else {
    // The bytes Node is about to run (not a second read of the file).
    checkBytes(guard, realpathOr(file), named, asBytes(result.source));
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
  const result = await nextResolve(specifier, context);
  if (guard !== null && typeof result?.url === 'string')
    remember(specifier, context.parentURL, result.url);
  return result;
}
