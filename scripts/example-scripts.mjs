// The scripted LLM provider and the worked example's scripts, bundled from
// the test support (TypeScript) with esbuild, a dev dependency, so the demo
// and the benchmarks drive the same threads as the tests with no API key and
// no network.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SUPPORT = fileURLToPath(new URL('../test/support/', import.meta.url));

/**
 * Bundle into `dir` and import: `startScriptedProvider`, `ORCHESTRATOR_INPUTS`,
 * `orchestratorScript`, `childScripts`. The example's scripts find
 * `examples/task-manager/` through `import.meta.url`, so the bundle is given
 * the location of the module that reads it.
 */
export async function importExampleScripts(dir) {
  const { build } = await import('esbuild');
  const outfile = join(dir, 'example-scripts.mjs');
  await build({
    stdin: {
      contents: `export { startScriptedProvider } from './scripted-provider/index.ts';
export { ORCHESTRATOR_INPUTS, orchestratorScript } from './task-manager/orchestrator-script.ts';
export { childScripts } from './task-manager/scripts.ts';`,
      resolveDir: SUPPORT,
      loader: 'ts',
    },
    define: {
      'import.meta.url': JSON.stringify(
        pathToFileURL(join(SUPPORT, 'task-manager', 'example-paths.ts')).href,
      ),
    },
    // yaml is CommonJS and requires node built-ins.
    banner: {
      js: "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);",
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
  });
  return import(pathToFileURL(outfile).href);
}
