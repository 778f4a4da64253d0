import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { RyeError } from '../errors/index.js';
import { readTextFileSync } from '../platform/index.js';
import {
  authorityOf,
  narrowAuthority,
  operatorAuthority,
  parseCapsOption,
  isCeilingToken,
  localTokenTrust,
  verifyCeilingToken,
  verifyPresented,
  type Authority,
} from '../threads/capabilities/index.js';
import { RegistryDb, registryDbPath } from '../threads/store/index.js';
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
export function commandAuthority(ctx: CommandContext, caps: string | undefined): Authority {
  let authority = operatorAuthority();
  const token = ctx.io.env['RYE_CAP_TOKEN'];
  if (token !== undefined) authority = tokenAuthority(ctx, token);
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

/**
 * The authority of a `RYE_CAP_TOKEN`. A root-only ceiling token (`rye cap
 * mint`, naming no thread) is checked against the user key and the revocation
 * list; a thread's token (a tool launched by a thread) against the user key,
 * this project's audience and the thread registry, which must vouch for its
 * jti as the current token of a running thread (THREADS.md §4). Which check
 * applies is read from the token itself; both verify every block.
 */
function tokenAuthority(ctx: CommandContext, raw: string): Authority {
  const token = raw.trim();
  if (isCeilingToken(token))
    return authorityOf(verifyCeilingToken(token, ctx.spaces).caps, 'token');
  const trust = localTokenTrust(ctx.spaces);
  const dbPath = registryDbPath(ctx.spaces.project);
  // No registry: no thread of this project ever held a token, so none is current.
  if (!existsSync(dbPath))
    return authorityOf(verifyPresented(token, trust, () => undefined, Date.now()).caps, 'token');
  // The registry vouches for the jti: the current token of a thread still running.
  const registry = RegistryDb.open(dbPath);
  try {
    return authorityOf(
      verifyPresented(token, trust, (jti) => registry.byJti(jti), Date.now()).caps,
      'token',
    );
  } finally {
    registry.close();
  }
}

/** Add `--caps` to a command that runs under an authority. */
export const CAPS_OPTION_HELP =
  'narrow this run to these capabilities: a list (rye.execute.tool.apps/*,rye.load.knowledge.*) or @file';
