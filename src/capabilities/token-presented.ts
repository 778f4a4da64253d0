import { tokenInvalid } from './token-error.js';
import { verifyToken, type JtiState, type VerifiedToken } from './token-verify.js';

/** What the thread registry says about a jti: whose current token it is, and how that thread stands. */
export interface JtiHolder {
  readonly threadId: string;
  readonly status: string;
}

/** The trust a token is verified against: the local user's key and this project's audience. */
export interface TokenTrust {
  readonly userPublicKey: string;
  readonly audience: string;
}

/**
 * Verify a token a thread presents (THREADS.md §4): the whole chain against
 * the local user's key and this project's audience, sealed by the holder key
 * of its last block (so the presenter is that block's thread, and no prefix
 * passes), then the registry: the jti must be the current one of a running
 * thread, and that thread must be the one the token names (and
 * `expectedThread`, when the presenter is known). A finished, cancelled or
 * rotated thread's token, or another thread's, is refused.
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID
 */
export function verifyPresented(
  token: string,
  trust: TokenTrust,
  lookup: (jti: string) => JtiHolder | undefined,
  nowMs: number,
  expectedThread?: string,
): VerifiedToken {
  let holder: JtiHolder | undefined;
  const verified = verifyToken(token, {
    userPublicKey: trust.userPublicKey,
    audience: trust.audience,
    now: Math.floor(nowMs / 1000),
    lookupJti: (jti): JtiState => {
      holder = lookup(jti);
      if (holder === undefined) return 'unknown';
      return holder.status === 'running' ? 'running' : 'finished';
    },
  });
  if (
    holder?.threadId !== verified.thread ||
    (expectedThread !== undefined && verified.thread !== expectedThread)
  )
    throw tokenInvalid('jti_mismatch', 'it is not the current token of the thread presenting it');
  return verified;
}
