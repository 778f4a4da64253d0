// Start `rye registry serve --port 0` in the background for the demo and the
// benchmarks; resolves with its URL once it prints its listening line.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/rye.js', import.meta.url));

/**
 * @param {{ data: string, databaseUrl?: string, env?: NodeJS.ProcessEnv, logLevel?: string, args?: string[] }} options
 * @returns {Promise<{ url: string, fingerprint: string, stop(): Promise<void> }>}
 */
export function startRegistry({
  data,
  databaseUrl,
  env = process.env,
  logLevel = 'error',
  args: extra = [],
}) {
  const args = [BIN, 'registry', 'serve', '--port', '0', '--data', data, '--log-level', logLevel];
  args.push(...extra);
  if (databaseUrl !== undefined) args.push('--database', databaseUrl);
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let out = '';
    const early = (code) => reject(new Error(`rye registry serve exited with ${code}`));
    child.once('exit', early);
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"listening"'));
      if (line === undefined) return;
      child.removeListener('exit', early);
      const { url, fingerprint } = JSON.parse(line);
      resolve({
        url,
        fingerprint,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}
