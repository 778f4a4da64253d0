import {
  appendTokenBlock,
  compileCaps,
  mintToken,
  newHolderKey,
  newJti,
  parseCapability,
  type HolderKey,
  UNLIMITED_TOKEN_TTL_S,
} from '../../capabilities/index.js';
import type { ThreadTree } from './thread-tree.js';

/**
 * A thread's token and the key pair that signs its children's blocks and
 * seals the token to present it (never written, logged or handed to a tool).
 */
export interface ThreadToken {
  /** The bare chain: it verifies only sealed by `holder` (`sealToken`). */
  readonly token: string;
  readonly holder: HolderKey;
  readonly jti: string;
  /** Unix seconds. */
  readonly exp: number;
}

/** The token's `exp` for a deadline (epoch ms) or none: THREADS.md §4. */
function expOf(nbf: number, deadlineMs: number | undefined, ceiling?: number): number | undefined {
  const own =
    deadlineMs === undefined ? undefined : Math.max(nbf + 1, Math.ceil(deadlineMs / 1000));
  if (ceiling === undefined) return own;
  return Math.min(own ?? ceiling, ceiling);
}

/** The root thread's token: block 0, signed by the user key. */
export function mintRootToken(
  tree: ThreadTree,
  thread: string,
  caps: readonly string[],
  deadlineMs: number | undefined,
): ThreadToken {
  const holder = newHolderKey();
  const nbf = Math.floor(tree.clock.now() / 1000);
  const jti = newJti(tree.random);
  const exp = expOf(nbf, deadlineMs) ?? nbf + UNLIMITED_TOKEN_TTL_S;
  const token = mintToken({
    signer: tree.signer,
    tree: thread,
    thread,
    depth: 0,
    aud: tree.trust.audience,
    caps: caps.map((c) => parseCapability(c)),
    nbf,
    exp,
    jti,
    holderPublicKey: holder.publicKey,
  });
  return { token, holder, jti, exp };
}

/**
 * A child's token: the parent's token plus a block signed by the parent's
 * in-memory key, holding the child's (already intersected) caps; `exp` never
 * later than the parent's.
 */
export function mintChildToken(
  tree: ThreadTree,
  parent: { token: string; holder: HolderKey },
  thread: string,
  caps: readonly string[],
  deadlineMs: number | undefined,
  parentExp: number,
): ThreadToken {
  const holder = newHolderKey();
  const nbf = Math.floor(tree.clock.now() / 1000);
  const jti = newJti(tree.random);
  const exp = expOf(nbf, deadlineMs, parentExp) as number;
  const token = appendTokenBlock(parent.token, {
    holder: parent.holder,
    thread,
    caps: compileCaps(caps.map((c) => parseCapability(c))),
    nbf,
    exp,
    jti,
    holderPublicKey: holder.publicKey,
  });
  return { token, holder, jti, exp };
}
