/**
 * Where the worked example (`examples/task-manager/`) lives and what its
 * reference app holds. Free of test-runner imports, so the benchmark can
 * bundle the scripts that read it.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The example's folder in the repository. */
export const EXAMPLE_DIR = fileURLToPath(
  new URL('../../../examples/task-manager/', import.meta.url),
);
/** The app source the scripted threads write, file by file. */
export const APP_SOURCE = join(EXAMPLE_DIR, 'reference', 'task-manager');
/** The four plans the orchestrator writes under `.ai/plans/<name>/phase_1/`. */
export const PLANS_DIR = join(EXAMPLE_DIR, 'reference', 'plans');
/** The app's name: its folder in the project and `{input:name}`. */
export const APP_NAME = 'task-manager';

/** The reference app's files, relative to its folder, sorted. */
export function appFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(APP_SOURCE, path).split('\\').join('/'));
    }
  };
  walk(APP_SOURCE);
  return out.sort();
}
