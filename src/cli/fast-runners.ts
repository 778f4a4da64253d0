import type { FastRunner, FastRunnerName } from './fast-path.js';

/**
 * `main`'s import of a fast runner (`fast/<name>.js`). Each import names its
 * file literally: the main build leaves these to the runners' own builds
 * (scripts/build-cli.mjs, fastRunnersApart), and the entry (entry.ts) loads
 * the same files without this module.
 */
export async function loadFastRunner(name: FastRunnerName): Promise<FastRunner> {
  switch (name) {
    case 'verify-file':
      return (await import('./fast/verify-file.js')).run;
    case 'verify':
      return (await import('./fast/verify.js')).run;
    case 'execute':
      return (await import('./fast/execute.js')).run;
    case 'bundle-verify':
      return (await import('./fast/bundle-verify.js')).run;
  }
}
