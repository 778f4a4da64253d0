import type { InProcessTool } from '../executor/index.js';

/** The bundler's tool id (system space). */
export const BUNDLER_TOOL_ID = 'rye/core/bundler/bundler';

/**
 * The body of `rye/core/bundler/bundler`, run in rye's process
 * (CONTAINMENT.md §1.8): creating a bundle signs its manifest with the user's
 * key, which no tool process ever holds. The same code as `rye bundle …`,
 * reporting as the tool file does (`{success, ...}`; a failed check is the
 * tool's failure with the check's message).
 */
export const bundlerInProcess: InProcessTool = async ({ spaces, params }) => {
  const { runBundlerAction } = await import('../bundle/index.js');
  const result = await runBundlerAction(spaces, params);
  if (result.ok !== false) return { ok: true, data: { success: true, ...result } };
  const message = result.message ?? 'bundle check failed';
  return { ok: false, data: { ...result, success: false, error: message }, message };
};

/** The daemon sandboxes tool's id (system space). */
export const SANDBOXES_TOOL_ID = 'rye/core/sandbox/sandboxes';

/**
 * The body of `rye/core/sandbox/sandboxes`, run in rye's process: the
 * records of daemon sandboxes live in the user space, which no sandbox sees.
 * It acts on the calling project's daemons only (another project's id is
 * not found): `list`, and `stop` by the id rye gave at start
 * (`metadata.daemon_sandbox`, the daemon's RYE_SANDBOX_ID). Stopping goes
 * by the identity rye recorded, never by a pid anyone else wrote down.
 */
export const sandboxesInProcess: InProcessTool = async ({ spaces, params }) => {
  const { daemonRecord, listDaemons, stopDaemon } = await import('../executor/index.js');
  const own = (record: { readonly project: string }): boolean => record.project === spaces.project;
  if (params['action'] === 'list') {
    const { daemons } = await listDaemons(spaces.user);
    return { ok: true, data: { success: true, daemons: daemons.filter(own) } };
  }
  const id = typeof params['id'] === 'string' ? params['id'] : '';
  let record;
  try {
    record = daemonRecord(spaces.user, id);
  } catch {
    record = null;
  }
  // Another project's daemon is not found either: no oracle for its ids.
  if (record === null || !own(record))
    return { ok: true, data: { success: true, id, stopped: false, reason: 'not found' } };
  return { ok: true, data: { success: true, id, stopped: await stopDaemon(spaces.user, record) } };
};
