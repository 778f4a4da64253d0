import { spawnSync } from 'node:child_process';
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
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      REGISTER,
      `${SYSTEM_TOOLS}${file}`,
      '--params',
      JSON.stringify(params),
      '--project-path',
      project,
    ],
    { cwd: project, encoding: 'utf8', env },
  );
  if (result.error) throw result.error;
  let out: ToolRun['out'];
  try {
    out = JSON.parse(result.stdout) as ToolRun['out'];
  } catch {
    throw new Error(`tool printed no JSON: ${result.stdout}\n${result.stderr}`);
  }
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, out };
}
