import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { killRunningToolsIfAny } from './ops-door.js';
import { stopSettled, type RyeMcpServer } from './server.js';
import { claimStdout } from './stdout-guard.js';
import { watchParent } from './watchdog.js';

export interface StdioServeOptions {
  readonly log: (line: string) => void;
  /** Parent check interval in ms (default 500). */
  readonly watchdogMs?: number;
  /** Ends the process (default `process.exit`). */
  readonly exit?: (code: number) => void;
}

/**
 * Serve one MCP client on stdin/stdout until it leaves. Only protocol bytes
 * reach stdout (everything else written there goes to stderr). The server
 * stops (THREADS.md §13) on stdin EOF, SIGTERM, SIGINT, SIGHUP, a broken
 * stdout, a transport that gave up or a vanished parent: it stops admitting calls, aborts those in
 * flight, SIGKILLs every running tool's process group, and exits 0 at once,
 * without waiting for handles that would keep Node alive (typescript-sdk#2002).
 * Tool processes never see this stdin: the executor gives them /dev/null.
 */
export async function serveStdio(mcp: RyeMcpServer, options: StdioServeOptions): Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopped = false;
  const stop = (reason: string): void => {
    if (stopped) return;
    stopped = true;
    mcp.stop();
    const killed = killRunningToolsIfAny();
    options.log(
      `stopping: ${reason}${killed > 0 ? `; killed ${killed} running tool process group(s)` : ''}`,
    );
    if (mcp.inFlight() === 0) return exit(0);
    void stopSettled([mcp]).then(() => exit(0));
  };
  const protocol = claimStdout();
  protocol.once('error', () => stop('stdout closed'));
  const transport = new StdioServerTransport(process.stdin, protocol);
  process.stdin.once('end', () => stop('stdin closed'));
  process.stdin.once('close', () => stop('stdin closed'));
  process.stdin.once('error', () => stop('stdin failed'));
  process.stdout.once('error', () => stop('stdout closed'));
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    process.once(signal, () => stop(signal));
  watchParent(() => stop('the parent process is gone'), {
    ...(options.watchdogMs === undefined ? {} : { intervalMs: options.watchdogMs }),
  });
  // The transport gives up on its own too (a message over its 10 MiB buffer):
  // with nothing left to read, the process must not linger.
  mcp.server.onclose = () => stop('the transport closed');
  await mcp.server.connect(transport);
}
