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
/**
 * The feature asked for on resume (add a priority field): its plan and, under
 * `task-manager/`, the app files it changes, each a whole file.
 */
export const PRIORITY_DIR = join(EXAMPLE_DIR, 'reference', 'priority');
export const PRIORITY_SOURCE = join(PRIORITY_DIR, 'task-manager');
/** The app's name: its folder in the project and `{input:name}`. */
export const APP_NAME = 'task-manager';

/** The reference app's files (or another source folder's), relative to it, sorted. */
export function appFiles(source: string = APP_SOURCE): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(source, path).split('\\').join('/'));
    }
  };
  walk(source);
  return out.sort();
}
