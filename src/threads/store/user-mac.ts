import { isRyeError } from '../../errors/index.js';
import { readSigner, type TrustSet } from '../../integrity/index.js';
import { keyDir, type Spaces } from '../../items/index.js';
import { macKeyring, type MacKeyring } from '../transcript/index.js';
import type { ThreadPaths } from './layout.js';
import { readThreadRecord } from './thread-record.js';

/**
 * The transcript MAC keys of the user key in user space, or null when there
 * is no key pair (then no event after a checkpoint is believed).
 * @throws RyeError KEY_INVALID
 */
export async function userMacKeyring(spaces: Spaces): Promise<MacKeyring | null> {
  try {
    return macKeyring(await readSigner(keyDir(spaces)));
  } catch (error) {
    if (isRyeError(error, 'KEY_NOT_FOUND')) return null;
    throw error;
  }
}

/**
 * `keyring` when the thread's record is signed by its key, else null: a
 * thread someone else ran was MACed under their key, so whatever follows its
 * last checkpoint is not believed here (never called tampered).
 * @throws RyeError THREAD_NOT_FOUND, THREAD_RECORD_INVALID
 */
export async function threadMacKeyring(
  paths: ThreadPaths,
  trust: TrustSet,
  keyring: MacKeyring | null,
): Promise<MacKeyring | null> {
  if (keyring === null) return null;
  try {
    await readThreadRecord(paths, trust, { own: keyring.fingerprint });
    return keyring;
  } catch (error) {
    if (isRyeError(error, 'THREAD_RECORD_FOREIGN')) return null;
    throw error;
  }
}
