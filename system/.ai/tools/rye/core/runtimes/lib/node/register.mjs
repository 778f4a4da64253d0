// Preloaded by the node runtime (`node --import <this file> tool.mjs`). It sets
// up the thread through guard.cjs (CommonJS, so that worker threads can run it
// as a `--require` preload too):
// - the bare specifier '@rye/runtime' maps to rye-tool.mjs beside this file,
//   so a tool needs no node_modules entry (and no NODE_PATH, which ESM
//   ignores) to import it, and '@rye/core' to the rye library itself
//   (RYE_LIBRARY_URL, set by the executor; the bundler tool imports it);
// - with RYE_VERIFIED_ROOTS set (a tool of a bundle), code under the bundle's
//   app folders runs only when the verified manifest lists its bytes: through
//   import (hooks.mjs) and through require, .json, native addons and workers
//   (guard.cjs).
import * as nodeModule from 'node:module';

if (typeof nodeModule.register !== 'function') {
  throw new Error(
    `Cannot start the Rye node runtime: Node ${process.versions.node} has no module.register(); Node 20.6 or later is required`,
  );
}
nodeModule
  .createRequire(import.meta.url)('./guard.cjs')
  .install();
