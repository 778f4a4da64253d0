import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { RYE_BIN } from '../helpers/cli.js';
import type { CatalogProject } from '../helpers/catalog.js';
import { until } from './support.js';

/** A `rye mcp serve` child driven by hand, every stdout byte kept for inspection. */
export interface RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every byte the server wrote on stdout. */
  stdout(): string;
  stderr(): string;
  send(message: Record<string, unknown>): void;
  /** The response to request `id` (waits for it). */
  response(id: number): Promise<Record<string, unknown>>;
  /** Resolves with the exit code and signal once the server has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawn the server and complete the initialize handshake. */
export async function startRawServer(
  p: CatalogProject,
  args: readonly string[] = [],
): Promise<RawServer> {
  const child = spawn(
    process.execPath,
    [RYE_BIN, 'mcp', 'serve', '--project', p.project, ...args],
    {
      env: p.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const messages = (): Record<string, unknown>[] =>
    stdout
      .split('\n')
      .slice(0, -1) // the last piece is a line still being written
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const server: RawServer = {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    send: (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`),
    async response(id) {
      let found: Record<string, unknown> | undefined;
      await until(
        () => (found = messages().find((m) => m['id'] === id)) !== undefined,
        20_000,
        `response ${id} (stderr: ${stderr})`,
      );
      return found as Record<string, unknown>;
    },
  };
  server.send({
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    },
  });
  await server.response(0);
  server.send({ method: 'notifications/initialized' });
  return server;
}
