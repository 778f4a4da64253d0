// Module resolution hooks registered by register.mjs. Only two specifiers are
// handled; everything else goes to the next resolver unchanged.
const RUNTIME_SPECIFIER = '@rye/runtime';
const RUNTIME_URL = new URL('./rye-tool.mjs', import.meta.url).href;
const LIBRARY_SPECIFIER = '@rye/core';
let libraryUrl = null;

export function initialize(data) {
  libraryUrl = typeof data?.libraryUrl === 'string' && data.libraryUrl !== '' ? data.libraryUrl : null;
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
