import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { RyeError } from '../../errors/index.js';
import { escapeControl, packageRoot } from '../../platform/index.js';
import { contextOf, type CliIo, type CommonOptions } from '../context.js';
import { refuseWithout } from '../flag-scope.js';
import type { Runner } from '../runner.js';

type ServeOptions = CommonOptions & {
  ceiling?: string;
  http?: number;
  host?: string;
  allowRemote?: boolean;
  /** commander's `--no-sandbox`: false when given. */
  sandbox?: boolean;
};

/** `rye mcp serve`: the four operations as MCP tools, on stdio or Streamable HTTP. */
export function mcpCommand(io: CliIo, run: Runner): Command {
  const serve = new Command('serve')
    .description(
      'serve execute, search, load and sign to an MCP client on stdio (logs on stderr); without --ceiling it acts with your full authority',
    )
    .option('--project <dir>', 'project folder (default: the working directory)')
    .option(
      '--ceiling <directive-id|token-file>',
      'cap every call at a signed directive’s permissions or a rye-cap-v1 token file (RYE_CAP_TOKEN caps it too)',
    )
    .option('--http <port>', 'serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead', port)
    .option('--host <address>', 'address to listen on with --http (default 127.0.0.1)')
    .option('--allow-remote', 'with --http, allow a non-loopback --host')
    .option(
      '--no-sandbox',
      'run the tools it serves without the bwrap sandbox (the operator only; no MCP client can ask for it)',
    )
    .addHelpText(
      'after',
      '\nClaude Code: claude mcp add rye -- rye mcp serve --project /path/to/project\nSee docs/mcp.md for Claude Desktop, Cursor, the ceiling and HTTP.',
    )
    .action((options: ServeOptions) =>
      run(options, async () => {
        for (const flag of ['--host', '--allow-remote'])
          refuseWithout('rye mcp serve', options, flag, '--http');
        const ctx = contextOf(options, io);
        requireDirectory(ctx.spaces.project);
        const { redactTokens } = await import('../../capabilities/index.js');
        const { startMcpServer } = await import('../../mcp/index.js');
        await startMcpServer({
          spaces: ctx.spaces,
          env: io.env,
          cwd: io.cwd,
          ...(options.ceiling === undefined ? {} : { ceiling: options.ceiling }),
          ...(options.sandbox === false ? { sandbox: 'off' as const } : {}),
          ...(options.http === undefined
            ? {}
            : {
                http: {
                  port: options.http,
                  ...(options.host === undefined ? {} : { host: options.host }),
                  allowRemote: options.allowRemote === true,
                },
              }),
          version: await version(),
          log: (line) => io.stderr(`rye mcp: ${redactTokens(escapeControl(line))}\n`),
          ...watchdog(io.env),
        });
        return 0;
      }),
    );
  return new Command('mcp').description('serve Rye to MCP clients').addCommand(serve);
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return n;
}

function requireDirectory(path: string): void {
  let ok = false;
  try {
    ok = statSync(path).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok)
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot serve ${path}: it is not a project folder`,
      {
        project: path,
      },
    );
}

async function version(): Promise<string> {
  const text = await readFile(join(packageRoot(), 'package.json'), 'utf8');
  return (JSON.parse(text) as { version?: string }).version ?? '0.0.0';
}

/** `RYE_MCP_WATCHDOG_MS` shortens the parent check (tests); 100 ms at least. */
function watchdog(env: NodeJS.ProcessEnv): { watchdogMs?: number } {
  const ms = Number(env['RYE_MCP_WATCHDOG_MS']);
  return Number.isInteger(ms) && ms >= 100 ? { watchdogMs: ms } : {};
}
