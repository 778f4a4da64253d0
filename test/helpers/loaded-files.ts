import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RYE_BIN } from './cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A module loader hook that appends each file it loads to $RYE_TEST_LOAD_LOG. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.RYE_TEST_LOAD_LOG, url + '\\n');
  return next(url, context);
}`;
const REGISTER = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

export interface LoadedRun {
  readonly code: number;
  readonly stdout: string;
  /** Every ES module file the process loaded, relative to the package root, `/`-separated. */
  readonly files: readonly string[];
}

/** Run the real `rye` binary and list the module files it loaded (ES modules only). */
export async function ryeLoading(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<LoadedRun> {
  const dir = mkdtempSync(join(tmpdir(), 'rye-load-log-'));
  const log = join(dir, 'loaded.txt');
  try {
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>(
      (resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, RYE_BIN, ...args],
          {
            env: { ...(options.env ?? process.env), RYE_TEST_LOAD_LOG: log },
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        );
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.on('error', reject);
        child.on('close', (c) => resolve({ code: c ?? -1, stdout: out }));
      },
    );
    let text = '';
    try {
      text = readFileSync(log, 'utf8');
    } catch {
      // Nothing loaded through the hook: an empty list.
    }
    const files = text
      .split('\n')
      .filter((line) => line !== '')
      .map((url) => relative(ROOT, fileURLToPath(url)).split(sep).join('/'));
    return { code, stdout, files: [...new Set(files)] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of a loaded file (relative to the package root). */
export function loadedText(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}
