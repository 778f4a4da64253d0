import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const RYE_BIN = fileURLToPath(new URL('../../bin/rye.js', import.meta.url));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON (throws when it is not). */
  json<T = Record<string, unknown>>(): T;
}

/** Run the real `rye` binary (compiled by the global setup) as a subprocess. */
export function rye(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; stdin?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RYE_BIN, ...args], {
      env: options.env ?? process.env,
      cwd: options.cwd ?? process.cwd(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code: code ?? -1,
        stdout,
        stderr,
        json: <T>() => JSON.parse(stdout) as T,
      }),
    );
    child.stdin.end(options.stdin ?? '');
  });
}
