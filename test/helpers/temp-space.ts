import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';

/** A throwaway project + user space pair, removed after the test. */
export interface TempSpaces {
  readonly root: string;
  readonly project: string;
  readonly user: string;
  readonly system: string;
  /** Environment for a CLI run inside these spaces. */
  readonly env: NodeJS.ProcessEnv;
  /** Write a file under the project (path relative to it). */
  write(relativePath: string, content: string | Uint8Array, base?: string): string;
}

const created: string[] = [];

afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Make temp spaces; the system space is empty unless `system` is given.
 * `sandbox: 'off'` writes the operator's `sandbox: off` into the user config:
 * for suites about something else whose tools write proof markers beside the
 * project, where no sandbox lets them (docs/sandbox.md). Containment is
 * tested with the sandbox on (test/executor/sandbox, test/system, test/example).
 */
export function makeTempSpaces(options: { system?: string; sandbox?: 'off' } = {}): TempSpaces {
  const root = mkdtempSync(join(tmpdir(), 'rye-test-'));
  created.push(root);
  const project = join(root, 'project');
  const user = join(root, 'user');
  const system = options.system ?? join(root, 'system');
  for (const dir of [project, user, system]) mkdirSync(dir, { recursive: true });
  if (options.sandbox === 'off') {
    mkdirSync(join(user, '.ai'), { recursive: true });
    writeFileSync(join(user, '.ai', 'config.yaml'), 'sandbox: off\n');
  }
  return {
    root,
    project,
    user,
    system,
    env: { ...process.env, RYE_USER_SPACE: user, RYE_SYSTEM_SPACE: system },
    write(relativePath, content, base = project) {
      const path = join(base, relativePath);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
      return path;
    },
  };
}
