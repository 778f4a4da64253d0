import { readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RyeError } from '../errors/index.js';
import { fingerprintOf } from '../integrity/index.js';
import { keyDir } from '../items/index.js';
import { readTextFileSync } from '../platform/index.js';
import {
  audienceOf,
  authorityOf,
  narrowAuthority,
  operatorAuthority,
  parseCapsOption,
  verifyToken,
  type Authority,
} from '../threads/capabilities/index.js';
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

function tokenAuthority(ctx: CommandContext, token: string): Authority {
  const publicKeyPath = join(keyDir(ctx.spaces), 'public_key.pem');
  let userPublicKey: string;
  try {
    userPublicKey = readFileSync(publicKeyPath, 'utf8');
  } catch {
    throw new RyeError(
      'CAPABILITY_TOKEN_INVALID',
      `Cannot act under RYE_CAP_TOKEN: there is no user key at ${publicKeyPath} to verify it with`,
      { reason: 'no_user_key' },
    );
  }
  const verified = verifyToken(token, {
    userPublicKey,
    audience: audienceOf(realpathSync(ctx.spaces.project), fingerprintOf(userPublicKey)),
    now: Math.floor(Date.now() / 1000),
    // No thread of this process issued it, and no thread registry vouches for it yet.
    lookupJti: () => 'unknown',
  });
  return authorityOf(verified.caps, 'token');
}

/** Add `--caps` to a command that runs under an authority. */
export const CAPS_OPTION_HELP =
  'narrow this run to these capabilities: a list (rye.execute.tool.apps/*,rye.load.knowledge.*) or @file';
