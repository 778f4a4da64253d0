/**
 * Step 11: run the primitive. An HTTP request goes out from this process; a
 * subprocess runs in the tool's sandbox (or, by the operator's choice, as the
 * user), with the verified manifest and, when the tool declares `rye:`, the
 * operation channel on fd 3.
 */
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { isRyeError, type ErrorCode } from '../../errors/index.js';
import { fileUrlOf, packageRoot } from '../../platform/index.js';
import { parseSandboxInfo, recordDaemon, unavailable } from '../sandbox/index.js';
import { serveChannel, type ChannelHandler } from './channel.js';
import { runSubprocess } from '../primitives/subprocess.js';
import type { PrimitiveRequest } from '../run-plan.js';
import { processRequest, type ToolSandbox } from './sandboxed-request.js';
import { interpretOutput } from './tool-output.js';
import { removeVerifiedManifest, writeVerifiedManifest } from './verified-manifest.js';
import type { Outcome, ToolFailure } from './outcome.js';

/** What the run needs besides its request: the verified files and the sandbox. */
export interface RunContext {
  readonly files: readonly { absolutePath: string; rawSha256: string }[];
  readonly roots: readonly string[];
  readonly anchorPath: string | null;
  readonly toolId: string;
  readonly signal: AbortSignal | undefined;
  readonly sandbox: ToolSandbox;
  /** The snapshot's copy of the runtime library (RYE_RUNTIME_LIB), when there is one. */
  readonly runtimeLib: string | null;
  readonly channel: ChannelHandler | undefined;
  /** The user space: where a daemon sandbox is recorded. */
  readonly userSpace: string;
}

/**
 * Run the primitive; failures of the run (non-zero exit, timeout, HTTP
 * error, a sandbox that could not start) are an outcome, not a throw.
 */
export async function runPrimitive(run: PrimitiveRequest, ctx: RunContext): Promise<Outcome> {
  const { files, roots, anchorPath, toolId, signal, sandbox } = ctx;
  if (run.kind === 'http') {
    // Loaded on use: most tools run a subprocess and never need the HTTP client.
    const { runHttpRequest } = await import('../primitives/http-client.js');
    try {
      const response = await runHttpRequest({ ...run.request, signal });
      if (response.status < 400) return { status: 'success', data: response };
      return {
        status: 'error',
        data: response,
        error: {
          code: 'EXECUTE_TOOL_FAILED',
          message: `Tool ${toolId} failed: HTTP ${response.status}`,
        },
      };
    } catch (error) {
      return { status: 'error', data: null, error: asFailure(error) };
    }
  }
  const manifest = await writeVerifiedManifest(files);
  const handler = sandbox.permissions.rye.length > 0 ? ctx.channel : undefined;
  let served: { ended(): void } | undefined;
  let socket: Duplex | undefined;
  let pids: { readonly dir: string; release(): void } | null = null;
  try {
    const ryeEnv: Record<string, string> = {
      RYE_VERIFIED_MANIFEST: manifest,
      RYE_LIBRARY_URL: libraryUrl(),
      ...(roots.length === 0 ? {} : { RYE_VERIFIED_ROOTS: JSON.stringify(roots) }),
      ...(anchorPath === null ? {} : { RYE_ANCHOR_PATH: anchorPath }),
      ...(ctx.runtimeLib === null ? {} : { RYE_RUNTIME_LIB: ctx.runtimeLib }),
      ...(handler === undefined ? {} : { RYE_CHANNEL_FD: '3' }),
    };
    const channel =
      handler === undefined
        ? undefined
        : (end: Duplex) => {
            socket = end;
            served = serveChannel(end, { handler, patterns: sandbox.permissions.rye });
          };
    const prepared = processRequest(sandbox, run, { manifest, ryeEnv });
    pids = prepared.pids;
    const result = await runSubprocess({ ...prepared.request, signal, channel });
    served?.ended();
    // bwrap's own refusals (before the tool runs) come as its first stderr line and exit 1.
    if (sandbox.mode === 'bwrap' && result.returnCode === 1 && result.stderr.startsWith('bwrap: '))
      throw unavailable(result.stderr.split('\n')[0]?.slice(7) ?? 'bwrap failed', 'EPERM');
    const daemon =
      prepared.daemonId === null
        ? null
        : await recordLeftRunning(prepared.daemonId, result.info, pids, ctx, sandbox);
    if (daemon !== null) {
      // Its cgroup is the daemon's now, and its channel closes with the call.
      pids = null;
      socket?.destroy();
    }
    const left = daemon === null ? {} : { daemon };
    const outcome = interpretOutput(result);
    if (outcome.success) return { status: 'success', data: outcome.data, ...left };
    const code: ErrorCode = result.timedOut
      ? 'EXECUTE_TIMEOUT'
      : result.cancelled
        ? 'EXECUTE_CANCELLED'
        : 'EXECUTE_TOOL_FAILED';
    const why = result.timedOut
      ? `timed out after ${run.request.timeoutMs} ms; its process tree was killed`
      : result.cancelled
        ? 'cancelled; its process tree was killed'
        : (outcome.reason ?? 'failed');
    return {
      status: 'error',
      data: outcome.data,
      error: { code, message: `Tool ${toolId} failed: ${why}` },
      ...left,
    };
  } catch (error) {
    return { status: 'error', data: null, error: asFailure(error) };
  } finally {
    served?.ended();
    pids?.release();
    await removeVerifiedManifest(manifest);
  }
}

/**
 * Record a daemon's sandbox if it outlived the call: bwrap reported its
 * init's host pid and PID namespace on the info descriptor. A daemon tool that left nothing
 * running leaves no record.
 */
async function recordLeftRunning(
  id: string,
  info: string | undefined,
  pids: { readonly dir: string } | null,
  ctx: RunContext,
  sandbox: ToolSandbox,
): Promise<string | null> {
  const reported = parseSandboxInfo(info);
  if (reported === null) return null;
  const record = await recordDaemon(ctx.userSpace, reported, {
    id,
    item_id: ctx.toolId,
    project: sandbox.projectPath,
    network: sandbox.permissions.network,
    cgroup: pids?.dir ?? null,
  });
  return record?.id ?? null;
}

/** The rye library a tool imports as `@rye/core`: the built package running this executor. */
function libraryUrl(): string {
  return fileUrlOf(join(packageRoot(), 'dist', 'src', 'index.js'));
}

function asFailure(error: unknown): ToolFailure {
  if (isRyeError(error))
    return { code: error.code, message: error.message, details: error.details };
  throw error;
}
