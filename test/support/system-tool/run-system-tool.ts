import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SYSTEM_TOOLS = fileURLToPath(new URL('../../../system/.ai/tools/', import.meta.url));
/** The source (unsigned) runtime library: node does not read signature lines. */
const REGISTER = `${SYSTEM_TOOLS}rye/core/runtimes/lib/node/register.mjs`;

export interface ToolRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The tool's one JSON document on stdout. */
  readonly out: { success: boolean; code?: string; error?: string; [k: string]: unknown };
}

/**
 * Run a system tool's source file as node_runtime starts it (`node --import
 * register.mjs tool --params … --project-path …`), without the executor: the
 * refusal tests of a tool's own checks need no signing. `rye execute` runs of
 * the signed build are tested separately.
 */
export function runSystemTool(
  file: string,
  params: Record<string, unknown>,
  project: string,
  env: NodeJS.ProcessEnv = process.env,
): ToolRun {
  const result = spawnSync(process.execPath, toolArgs(file, params, project), {
    cwd: project,
    encoding: 'utf8',
    env,
  });
  if (result.error) throw result.error;
  return toolRun(result.status, result.stdout, result.stderr);
}

/** {@link runSystemTool} without blocking: for runs that must overlap (parallel children). */
export function startSystemTool(
  file: string,
  params: Record<string, unknown>,
  project: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, toolArgs(file, params, project), { cwd: project, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve(toolRun(code, stdout, stderr));
      } catch (error) {
        reject(error as Error);
      }
    });
  });
}

function toolArgs(file: string, params: Record<string, unknown>, project: string): string[] {
  const args = ['--import', REGISTER, `${SYSTEM_TOOLS}${file}`, '--params'];
  return [...args, JSON.stringify(params), '--project-path', project];
}

function toolRun(code: number | null, stdout: string, stderr: string): ToolRun {
  let out: ToolRun['out'];
  try {
    out = JSON.parse(stdout) as ToolRun['out'];
  } catch {
    throw new Error(`tool printed no JSON: ${stdout}\n${stderr}`);
  }
  return { code, stdout, stderr, out };
}
