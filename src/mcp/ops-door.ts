import type * as Ops from '../ops/index.js';

let loading: Promise<typeof Ops> | undefined;
let killTools: (() => number) | undefined;

/**
 * The four operations, loaded on first use. They pull in the executor, the
 * catalog and the provider SDKs (about 0.4 s of module loading), which the
 * MCP handshake must not wait for: the server warms them once the client is
 * initialized, so the first call rarely pays. The executor's
 * `killRunningTools` is taken before the door opens, so no tool can start
 * before the server is able to kill it.
 */
export function opsDoor(): Promise<typeof Ops> {
  loading ??= import('../ops/index.js').then(async (ops) => {
    killTools = (await import('../executor/index.js')).killRunningTools;
    return ops;
  });
  return loading;
}

/**
 * SIGKILL the process group of every tool still running; 0 when the
 * operations were never loaded (tools run only through them).
 */
export function killRunningToolsIfAny(): number {
  return killTools?.() ?? 0;
}
