import { resolve } from 'node:path';
import { RyeError } from '../errors/index.js';
import { readTextFileSync } from '../platform/index.js';
import {
  narrowAuthority,
  operatorAuthority,
  parseCapsOption,
  isCeilingToken,
  type Authority,
} from '../capabilities/index.js';
import type { CommandContext } from './context.js';

/**
 * The authority a command acts with. By default the operator's (the user's
 * own CLI: everything). `--caps FILE|LIST` narrows it for this run, so a user
 * can try a directive's permissions by hand. A `RYE_CAP_TOKEN` in the
 * environment (a tool launched by a thread) holds the process to that token:
 * a token that does not verify refuses everything, never falling back to the
 * operator's authority (THREADS.md §4).
 *
 * @throws RyeError CAPABILITY_INVALID (a bad `--caps`), CAPABILITY_TOKEN_INVALID
 */
export async function commandAuthority(
  ctx: CommandContext,
  caps: string | undefined,
): Promise<Authority> {
  let authority = operatorAuthority();
  const token = ctx.io.env['RYE_CAP_TOKEN'];
  // Loaded on use: the token checks read the thread registry (SQLite), which
  // a run without a token (most `rye execute tool`) never opens.
  if (token !== undefined)
    authority = (await import('./token-authority.js')).tokenAuthority(ctx, token);
  if (caps === undefined) return authority;
  const parsed = parseCapsOption(caps, (path) =>
    readTextFileSync(resolve(ctx.io.cwd, path), 64 * 1024),
  );
  return narrowAuthority(authority, parsed.set, authority.source === 'token' ? 'token' : 'caps');
}

/**
 * Refuse to start a thread tree in a process held to a thread's token (a tool
 * a thread launched): its tree would escape the thread's spawn limits and its
 * budget. Children are started by the thread itself, which holds the key
 * (THREADS.md §4). A minted ceiling token (no thread) may start roots.
 *
 * @throws RyeError THREAD_NESTED_DIRECTIVE, CAPABILITY_TOKEN_INVALID (a token that does not decode)
 */
export function refuseUnderThreadToken(ctx: CommandContext, directiveId: string): void {
  const token = ctx.io.env['RYE_CAP_TOKEN'];
  if (token === undefined) return;
  if (isCeilingToken(token.trim())) return;
  throw new RyeError(
    'THREAD_NESTED_DIRECTIVE',
    `Cannot run directive ${directiveId} under a thread's RYE_CAP_TOKEN: only the thread itself starts child threads`,
    { item_id: directiveId },
  );
}

/** Add `--caps` to a command that runs under an authority. */
export const CAPS_OPTION_HELP =
  'narrow this run to these capabilities: a list (rye.execute.tool.apps/*,rye.load.knowledge.*) or @file';
