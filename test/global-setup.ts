import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * CLI tests spawn the real `rye` binary, which runs the compiled output: build
 * it once before the suite. RYE_SKIP_BUILD=1 skips this for unit-only runs.
 */
export function setup(): void {
  if (process.env['RYE_SKIP_BUILD'] === '1') return;
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync('npm', ['run', '--silent', 'build'], {
    cwd: root,
    stdio: 'inherit',
  });
}
