import { existsSync } from 'node:fs';
import {
  authorityOf,
  isCeilingToken,
  localTokenTrust,
  verifyCeilingToken,
  verifyPresented,
  type Authority,
  type VerifiedToken,
} from '../capabilities/index.js';
import { RegistryDb, registryDbPath } from '../threads/store/index.js';
import type { CommandContext } from './context.js';

/**
 * The authority of a `RYE_CAP_TOKEN`. A root-only ceiling token (`rye cap
 * mint`, naming no thread) is checked against the user key and the revocation
 * list; a thread's token against the user key, this project's audience and
 * the thread registry, which must vouch for its jti as the current token of a
 * running thread (THREADS.md §4). Which check applies is read from the token
 * itself; both verify every block and the seal, so the presenter is proven to
 * hold the key of the last block's holder: a thread's token is accepted only
 * as that thread presents it (its holder key never leaves its process), and a
 * bare chain or a prefix of one is refused.
 */
export function tokenAuthority(ctx: CommandContext, raw: string): Authority {
  const token = raw.trim();
  if (isCeilingToken(token)) {
    const v = verifyCeilingToken(token, ctx.spaces);
    return { ...authorityOf(v.caps, 'token'), holder: { kind: 'ceiling', jti: v.jti, exp: v.exp } };
  }
  const trust = localTokenTrust(ctx.spaces);
  const dbPath = registryDbPath(ctx.spaces.project);
  // No registry: no thread of this project ever held a token, so none is current.
  if (!existsSync(dbPath))
    return threadAuthority(verifyPresented(token, trust, () => undefined, Date.now()));
  // The registry vouches for the jti: the current token of a thread still running.
  const registry = RegistryDb.open(dbPath);
  try {
    return threadAuthority(verifyPresented(token, trust, (jti) => registry.byJti(jti), Date.now()));
  } finally {
    registry.close();
  }
}

function threadAuthority(v: VerifiedToken): Authority {
  const authority = authorityOf(v.caps, 'token');
  // verifyPresented accepts only a token naming a running thread.
  return v.thread === null
    ? authority
    : { ...authority, holder: { kind: 'thread', thread: v.thread, exp: v.exp } };
}
