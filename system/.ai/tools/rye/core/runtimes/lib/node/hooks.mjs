// Module resolution hooks registered by register.mjs. Only the one specifier
// is handled; everything else goes to the next resolver unchanged.
const RUNTIME_SPECIFIER = '@rye/runtime';
const RUNTIME_URL = new URL('./rye-tool.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === RUNTIME_SPECIFIER) {
    return { url: RUNTIME_URL, format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
