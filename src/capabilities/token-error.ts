import { RyeError } from '../errors/index.js';

/**
 * Why a capability token was refused (`details.reason`), one per check of
 * THREADS.md §4. Stable strings: tests, logs and callers branch on them.
 */
export type TokenRefusal =
  | 'malformed'
  | 'too_large'
  | 'too_many_blocks'
  | 'wrong_signer'
  | 'bad_signature'
  | 'chain_broken'
  | 'tree_changed'
  | 'aud_changed'
  | 'depth_mismatch'
  | 'thread_reused'
  | 'caps_widened'
  | 'exp_extended'
  | 'nbf_earlier'
  | 'not_yet_valid'
  | 'expired'
  | 'wrong_audience'
  | 'unsealed'
  | 'bad_seal'
  | 'jti_unknown'
  | 'jti_finished'
  | 'jti_mismatch';

/**
 * A CAPABILITY_TOKEN_INVALID error. The message never quotes the token (it is
 * a bearer secret); `block` is the index of the block at fault, when one is.
 */
export function tokenInvalid(reason: TokenRefusal, why: string, block?: number): RyeError {
  const where = block === undefined ? '' : ` (block ${block})`;
  return new RyeError(
    'CAPABILITY_TOKEN_INVALID',
    `Cannot accept the capability token: ${why}${where}`,
    {
      reason,
      ...(block === undefined ? {} : { block }),
    },
  );
}
