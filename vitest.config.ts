import { configDefaults, defineConfig } from 'vitest/config';
import { SPAWNING } from './test/lanes/spawning.js';

/** What both lanes share. */
const common = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  setupFiles: ['test/lanes/spawn-guard.ts'],
};

/**
 * Two lanes (docs/development.md): `fast`, every file that starts no process
 * (`npm run test:fast`), and `spawning`, the files named in
 * test/lanes/spawning.ts. `vitest run` runs both. The projects do not extend
 * this config, so its global setup (the build) runs once, not once per lane.
 */
const config = defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // `npm run coverage`. V8 sees only the test workers: code run in a child
    // process (the CLI, a tool) counts for nothing here.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'html', 'json-summary'],
      // Every branch of the trust path: hashing, signing and verification, the
      // lockfile that pins a chain, and the bundle manifests.
      thresholds: {
        'src/integrity/**': { branches: 100 },
        'src/lockfile/**': { branches: 100 },
        'src/bundle/**': { branches: 100 },
      },
    },
    projects: [
      {
        test: {
          ...common,
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SPAWNING],
        },
      },
      { test: { ...common, name: 'spawning', include: [...SPAWNING] } },
    ],
  },
});

export default config;
