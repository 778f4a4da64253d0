import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { RyeError, isRyeError } from '../errors/index.js';
import { escapeControl } from '../platform/index.js';
import type { OperationContext } from '../ops/index.js';
import { opsDoor } from './ops-door.js';
import { CoalescedProgress } from './progress.js';
import { internalErrorResult, refusalResult, toCallResult, type McpCallResult } from './results.js';
import { isMcpToolName, mcpToolDefinitions } from './tools.js';

export interface RyeMcpServerOptions {
  /**
   * The context of one call, authority included: resolved per call, so a
   * ceiling that stopped verifying refuses the call (its RyeError becomes the
   * call's error result).
   */
  readonly contextFor: (signal: AbortSignal) => Promise<OperationContext>;
  /** One line for the log (stderr); never stdout. */
  readonly log: (line: string) => void;
  readonly version: string;
}

/**
 * How long in-flight calls get to wind down after a stop: a cancelled thread
 * seals its transcript as `cancelled` in a few ms, and the process exits
 * within 1 s whatever happens (THREADS.md §13).
 */
export const STOP_SETTLE_MS = 600;

/** Resolves once no call of any of `servers` is in flight, or after STOP_SETTLE_MS. */
export async function stopSettled(servers: readonly RyeMcpServer[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(servers.map((s) => s.settled())),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_SETTLE_MS))),
  ]);
  clearTimeout(timer);
}

/** A server for one connection, and the handle to stop it. */
export interface RyeMcpServer {
  readonly server: Server;
  /** Calls running now. */
  inFlight(): number;
  /** Stop admitting calls (MCP_SERVER_STOPPING) and abort those in flight. */
  stop(): void;
  /** Resolves once no call is in flight (at once when none is). */
  settled(): Promise<void>;
}

const INSTRUCTIONS =
  'Rye serves signed items (directives, tools, knowledge) through four tools. ' +
  'Every item is verified (signature, executor chain, dependencies) before it is loaded or run; ' +
  'a refusal comes back as an error result with a stable code and a hint. ' +
  'Use search to find items, load to read one, execute to run a tool or a directive (as a thread), sign to sign items. ' +
  'Thread status and transcripts: execute the tools rye/agent/threads/thread_status and rye/agent/threads/read_transcript.';

/**
 * The four operations as MCP tools (THREADS.md §13), on the SDK's low-level
 * `Server`: the tool list comes from the operations' own zod schemas, and
 * every call goes through `runOperation`, so invalid or unknown arguments
 * and unknown tools are error results carrying the project's codes
 * (`isError`, the `status: "error"` shape), never JSON-RPC errors, which stay
 * for protocol faults. A bug in a call is logged and answered INTERNAL_ERROR;
 * the server keeps serving.
 */
export function createRyeMcpServer(options: RyeMcpServerOptions): RyeMcpServer {
  const server = new Server(
    { name: 'rye', version: options.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const running = new Set<AbortController>();
  let stopping = false;
  const idle: (() => void)[] = [];

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await mcpToolDefinitions()).map((t) => ({ ...t })),
  }));
  // Warm the operations once the handshake is done (see opsDoor).
  server.oninitialized = () => void opsDoor();

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (stopping)
      return refusalResult(
        new RyeError('MCP_SERVER_STOPPING', 'Cannot start the call: the server is shutting down'),
      );
    const controller = new AbortController();
    const abort = () => controller.abort(extra.signal.reason);
    extra.signal.addEventListener('abort', abort, { once: true });
    running.add(controller);
    const token = extra._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : new CoalescedProgress((update) =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, ...update },
            }),
          );
    try {
      return await callTool(request, controller.signal, options, progress);
    } finally {
      progress?.end();
      running.delete(controller);
      extra.signal.removeEventListener('abort', abort);
      if (running.size === 0) for (const resolve of idle.splice(0)) resolve();
    }
  });

  return {
    server,
    inFlight: () => running.size,
    stop() {
      stopping = true;
      for (const controller of running) controller.abort(new Error('the server is stopping'));
    },
    settled: () =>
      running.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve)),
  };
}

async function callTool(
  request: CallToolRequest,
  signal: AbortSignal,
  options: RyeMcpServerOptions,
  progress: CoalescedProgress | undefined,
): Promise<McpCallResult> {
  const name = request.params.name;
  const args: unknown = request.params.arguments ?? {};
  if (!isMcpToolName(name))
    return refusalResult(
      new RyeError(
        'MCP_TOOL_UNKNOWN',
        `Cannot call tool "${escapeControl(name.slice(0, 100))}": the tools are execute, search, load and sign`,
        { tool: name.slice(0, 100) },
      ),
    );
  progress?.push(`${name}: checking the call`);
  try {
    const ctx = {
      ...(await options.contextFor(signal)),
      // A directive's thread reports its turns and calls as they happen.
      ...(progress === undefined ? {} : { onProgress: (line: string) => progress.push(line) }),
    };
    const result = await (await opsDoor()).runOperation(name, args, ctx);
    progress?.push(`${name}: ${result.status}`);
    return toCallResult(result);
  } catch (error) {
    if (isRyeError(error)) return refusalResult(error, itemIdOf(args));
    options.log(
      `internal error in ${name}: ${escapeControl(error instanceof Error ? (error.stack ?? error.message) : String(error))}`,
    );
    return internalErrorResult(error);
  }
}

function itemIdOf(args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const id = (args as Record<string, unknown>)['item_id'];
  return typeof id === 'string' && id.length <= 512 ? id : undefined;
}
