/**
 * The worked example (`examples/task-manager/`) in a throwaway project:
 * its items ship unsigned in the repository, so each test copies them into a
 * temp project and signs them with a fresh user key (trusted on first sign,
 * as `rye keys generate` + `rye sign` would), beside a private copy of the
 * signed system space.
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeExecProject, type ExecProject } from '../../helpers/exec-project.js';
import { APP_NAME, APP_SOURCE, EXAMPLE_DIR, appFiles } from './example-paths.js';

export { APP_NAME, APP_SOURCE, EXAMPLE_DIR, PLANS_DIR, appFiles } from './example-paths.js';

export interface ExampleProject extends ExecProject {
  /** Copy the whole reference app into the project (for threads that need a finished app). */
  writeApp(): void;
}

/**
 * A temp project holding the example's `.ai/` items, signed with the
 * project's fresh user key. The reference app is not copied: the threads
 * write it (or a test calls `writeApp()`).
 */
export async function makeExampleProject(): Promise<ExampleProject> {
  const p = await makeExecProject();
  cpSync(join(EXAMPLE_DIR, '.ai'), join(p.project, '.ai'), { recursive: true });
  for (const type of ['directive', 'tool', 'knowledge'] as const)
    await p.sign(type, 'apps/task-manager/**');
  return asExampleProject(p);
}

/**
 * Any project as an example project: one whose items came another way (a
 * pulled bundle, signed by someone else) runs the example just the same.
 */
export function asExampleProject(p: ExecProject): ExampleProject {
  return {
    ...p,
    writeApp: () => {
      for (const file of appFiles())
        p.write(`${APP_NAME}/${file}`, readFileSync(join(APP_SOURCE, file)));
    },
  };
}
