import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach } from 'vitest';
import {
  audienceOf,
  mintToken,
  newHolderKey,
  parseCapability,
  sealToken,
} from '../../src/capabilities/index.js';
import { newThreadId } from '../../src/ids/index.js';
import { RYE_BIN } from '../helpers/cli.js';
import { makeCatalogProject, type CatalogProject } from '../helpers/catalog.js';
import { hostPidOf } from '../helpers/process-alive.js';

/**
 * What a tool that leaves files declares: it runs sandboxed, and writes only in
 * the project's \`markers/\` (\`McpProject.markers\`). No ceiling a marking tool
 * runs under has a \`<sandbox>\`, so a tool that ran always leaves its file.
 */
export const WRITES_MARKERS = '{"write": ["markers"]}';

/**
 * A Python tool whose body follows the metadata; `params` is the parsed
 * --params JSON; `permissions`, when given, is its `__permissions__`.
 */
export const pythonTool = (
  category: string,
  body: string,
  permissions?: string,
): string => `import json, os, sys, time
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "${category}"
__tool_description__ = "mcp test tool"${permissions === undefined ? '' : `\n__permissions__ = ${permissions}`}
params = json.loads(sys.argv[sys.argv.index("--params") + 1]) if "--params" in sys.argv else {}
${body}
`;

/** A directive whose `<permissions>` block is `permissions` (the ceiling fixture). */
export const directiveWith = (name: string, category: string, permissions: string): string =>
  `# ${name}

\`\`\`xml
<directive name="${name}" version="1.0.0">
  <metadata>
    <description>MCP ceiling fixture</description>
    <category>${category}</category>
    <author>tester</author>
    <permissions>
${permissions}
    </permissions>
  </metadata>
  <process><step name="one"><description>Do it.</description></step></process>
</directive>
\`\`\`
`;

/** The ceiling directive: run t/echo, search everything, load notes/*. */
export const READER_PERMISSIONS = `      <execute><tool>t.echo</tool></execute>
      <search>*</search>
      <load><knowledge>notes.*</knowledge></load>`;

export interface McpProject extends CatalogProject {
  /** Where `t/marker` and `t/sleeper` leave their files: the project's `markers/`. */
  readonly markers: string;
}

/**
 * A signed project for the server: tools `t/echo` (echoes its parameters),
 * `t/noisy` (floods stdout and stderr, reads stdin), `t/marker` (writes the
 * file named by `path`), `t/sleeper` (makes the folder named by `path`, runs
 * in it, writes its pid to `pid` there, then sleeps a minute),
 * knowledge `notes/alpha` and `secret/plan`, and the directive
 * `ceilings/reader`.
 */
export async function makeMcpProject(): Promise<McpProject> {
  const p = await makeCatalogProject();
  const markers = join(p.project, 'markers');
  p.write('markers/.keep', '');
  p.write('.ai/tools/t/echo.py', pythonTool('t', 'print(json.dumps({"echo": params}))'));
  p.write(
    '.ai/tools/t/noisy.py',
    pythonTool(
      't',
      [
        'got = sys.stdin.read()',
        'for i in range(2000):',
        '    print("noise " + str(i) + " " + "x" * 60)',
        '    sys.stderr.write("err " + str(i) + "\\n")',
        'print(json.dumps({"stdin": got}))',
      ].join('\n'),
    ),
  );
  p.write(
    '.ai/tools/t/marker.py',
    pythonTool(
      't',
      'open(params["path"], "w").write("ran")\nprint(json.dumps({"ok": True}))',
      WRITES_MARKERS,
    ),
  );
  p.write(
    '.ai/tools/t/sleeper.py',
    pythonTool(
      't',
      [
        'os.makedirs(params["path"], exist_ok=True)',
        'os.chdir(params["path"])',
        'open("pid", "w").write(str(os.getpid()))',
        'time.sleep(60)',
        'print("{}")',
      ].join('\n'),
      WRITES_MARKERS,
    ),
  );
  await p.sign('tool', 't/*');
  p.knowledge('notes/alpha', { title: 'Alpha notes', body: 'The alpha launch checklist.' });
  p.knowledge('secret/plan', { title: 'Secret plan', body: 'Nothing to see.' });
  p.write(
    '.ai/directives/ceilings/reader.md',
    directiveWith('reader', 'ceilings', READER_PERMISSIONS),
  );
  await p.sign('directive', 'ceilings/reader');
  return { ...p, markers };
}

/** A root-only ceiling token for this project, signed by its user key and sealed as `rye cap mint` seals. */
export function ceilingToken(
  p: CatalogProject,
  caps: readonly string[],
  options: { nbf?: number; exp?: number; jti?: string; thread?: string | null } = {},
): string {
  const now = Math.floor(Date.now() / 1000);
  const tree = newThreadId('mcp_ceiling');
  const aud = audienceOf(realpathSync(p.project), p.signer.fingerprint);
  const holder = newHolderKey();
  const chain = mintToken({
    signer: p.signer,
    tree,
    thread: options.thread === undefined ? null : (options.thread ?? null),
    aud,
    caps: caps.map(parseCapability),
    nbf: options.nbf ?? now - 10,
    ...(options.exp === undefined ? {} : { exp: options.exp }),
    ...(options.jti === undefined ? {} : { jti: options.jti }),
    holderPublicKey: holder.publicKey,
  });
  return sealToken(chain, holder, aud);
}

/** Write `text` to a file under the project's temp root; returns its path. */
export function writeRootFile(p: CatalogProject, name: string, text: string): string {
  const path = join(p.root, name);
  writeFileSync(path, text);
  return path;
}

export interface Connected {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  readonly pid: number;
}

const open: Connected[] = [];

afterEach(async () => {
  for (const c of open.splice(0)) await c.client.close().catch(() => undefined);
});

/** Spawn `node bin/rye.js mcp serve <args>` and connect the SDK's own client to it. */
export async function connect(
  p: Pick<CatalogProject, 'project' | 'env'>,
  args: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [RYE_BIN, 'mcp', 'serve', '--project', p.project, ...args],
    env: { ...(p.env as Record<string, string>), ...(env as Record<string, string>) },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'rye-test', version: '1.0.0' });
  await client.connect(transport);
  const connected: Connected = {
    client,
    transport,
    stderr: () => stderr,
    pid: transport.pid ?? -1,
  };
  open.push(connected);
  return connected;
}

export interface HttpServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: URL;
  stderr(): string;
}

const httpChildren: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of httpChildren.splice(0)) child.kill('SIGKILL');
});

/** Spawn `node bin/rye.js mcp serve --http 0` and wait for the URL it listens at. */
export async function startHttp(
  p: Pick<CatalogProject, 'project' | 'env'>,
  env: NodeJS.ProcessEnv = {},
): Promise<HttpServer> {
  const child = spawn(
    process.execPath,
    [RYE_BIN, 'mcp', 'serve', '--project', p.project, '--http', '0'],
    { env: { ...p.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  httpChildren.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  await until(() => /at (http:\S+)/.test(stderr), 20_000, 'the listening line');
  const url = new URL(/at (http:\S+)/.exec(stderr)?.[1] ?? '');
  return { child, url, stderr: () => stderr };
}

/**
 * The host pids of the processes running in `dir` whose pids are written in
 * `dir/<file>` (space-separated), once all of them run: a sandboxed tool
 * writes its own PID namespace's pids, which name nothing on the host.
 */
export async function hostPidsIn(dir: string, file: string, count = 1): Promise<number[]> {
  let pids: number[] = [];
  await until(
    () => {
      const path = join(dir, file);
      const own = existsSync(path) ? readFileSync(path, 'utf8').trim().split(' ').map(Number) : [];
      if (own.length !== count || own.some((pid) => !(pid > 0))) return false;
      pids = own.map((pid) => hostPidOf(pid, realpathSync(dir)) ?? -1);
      return pids.every((pid) => pid > 0);
    },
    20_000,
    `the processes in ${dir}`,
  );
  return pids;
}

/** Wait until `check` holds, polling every 25 ms, for at most `ms` (then throw). */
export async function until(check: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export { processAlive } from '../helpers/process-alive.js';
