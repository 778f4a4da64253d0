import { IN_PROCESS_TOOLS } from '../registry/in-process.js';
import type { OperationContext } from '../ops/index.js';
import { THREADS_PORT } from '../threads/root/index.js';
import { commandAuthority } from './authority.js';
import type { CommandContext } from './context.js';

/** The operations' context for a command: its spaces, the process env, and its authority. */
export async function operationContext(
  ctx: CommandContext,
  caps: string | undefined,
  options: SandboxFlags = {},
): Promise<OperationContext> {
  return {
    spaces: ctx.spaces,
    env: ctx.io.env,
    authority: await commandAuthority(ctx, caps),
    ...(sandboxOff(options) ? { sandbox: 'off' as const } : {}),
    inProcessTools: IN_PROCESS_TOOLS,
    threads: THREADS_PORT,
  };
}

/** `--no-sandbox`, as commander gives it (`sandbox: false`). */
export interface SandboxFlags {
  readonly sandbox?: boolean;
}

/** True when the operator passed `--no-sandbox`. */
export function sandboxOff(options: SandboxFlags): boolean {
  return options.sandbox === false;
}
