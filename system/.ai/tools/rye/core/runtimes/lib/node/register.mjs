// Preloaded by the node runtime (`node --import <this file> tool.mjs`): maps the
// bare specifier '@rye/runtime' to rye-tool.mjs beside this file, so a tool
// needs no node_modules entry (and no NODE_PATH, which ESM ignores) to import it,
// and '@rye/core' to the rye library itself.
import * as nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';

if (typeof nodeModule.register !== 'function') {
  throw new Error(
    `Cannot start the Rye node runtime: Node ${process.versions.node} has no module.register(); Node 20.6 or later is required`,
  );
}
// RYE_LIBRARY_URL (set by the executor) is the rye library running the tool:
// tools may `import … from '@rye/core'` to use it (the bundler tool does).
nodeModule.register('./hooks.mjs', {
  parentURL: import.meta.url,
  data: {
    libraryUrl: process.env.RYE_LIBRARY_URL ?? null,
    // Bundle app folders whose modules must match the verified manifest (see hooks.mjs).
    verifiedRoots: process.env.RYE_VERIFIED_ROOTS ?? null,
    verifiedManifest: process.env.RYE_VERIFIED_MANIFEST ?? null,
  },
});

// On Node 20, register() hooks do not see require(). A .ts tool outside a
// "type": "module" package is compiled to CommonJS by the TypeScript loader,
// so its `import … from '@rye/runtime'` becomes a require(): map it there too.
// (_resolveFilename is the hook point TypeScript loaders themselves patch.)
const { Module } = nodeModule;
const runtimePath = fileURLToPath(new URL('./rye-tool.mjs', import.meta.url));
const resolveFilename = Module?._resolveFilename;
if (typeof resolveFilename === 'function') {
  Module._resolveFilename = function resolveRyeRuntime(request, ...rest) {
    return request === '@rye/runtime' ? runtimePath : resolveFilename.call(this, request, ...rest);
  };
}
