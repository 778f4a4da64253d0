import { sha256Hex } from '../integrity/index.js';

/**
 * A token's audience: hex SHA-256 of `realpath(project) + "\n" + user key
 * fingerprint`, so a token minted for one project or user is refused by every
 * other. The caller resolves the real path (symlinks followed) first. Pure.
 */
export function audienceOf(projectRealpath: string, userFingerprint: string): string {
  return sha256Hex(`${projectRealpath}\n${userFingerprint}`);
}
