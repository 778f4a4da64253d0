import { join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import type { Spaces } from '../../items/index.js';
import { readUrlMap, registryUserDir, urlKey, writeUrlMap } from './user-files.js';

/** A registry session saved by signup or login. */
export interface SavedCredential {
  readonly username: string;
  readonly token: string;
  readonly tokenId: string;
  readonly savedAt: string;
}

/** The token to send, and where it came from. */
export interface TokenInUse {
  readonly token: string;
  readonly source: 'env' | 'credentials';
  /** Known for saved credentials; null for RYE_REGISTRY_TOKEN. */
  readonly username: string | null;
}

/** `<user>/.ai/registry/credentials.json` (mode 0600): URL → session. */
export function credentialsPath(spaces: Spaces): string {
  return join(registryUserDir(spaces), 'credentials.json');
}

/**
 * The saved session for a registry URL, or null. Entries with missing fields
 * are ignored (as if logged out).
 *
 * @throws RyeError FILE_UNREADABLE when the file is not a JSON object.
 */
export async function readCredential(spaces: Spaces, url: string): Promise<SavedCredential | null> {
  const entry = (await readUrlMap(credentialsPath(spaces))).get(urlKey(url));
  if (entry === undefined) return null;
  const { username, token, token_id: tokenId, saved_at: savedAt } = entry;
  if (typeof username !== 'string' || typeof token !== 'string' || token === '') return null;
  return {
    username,
    token,
    tokenId: typeof tokenId === 'string' ? tokenId : '',
    savedAt: typeof savedAt === 'string' ? savedAt : '',
  };
}

/** Save (or replace) the session for a registry URL; the file stays 0600. */
export async function saveCredential(
  spaces: Spaces,
  url: string,
  credential: SavedCredential,
): Promise<string> {
  const path = credentialsPath(spaces);
  const map = await readUrlMap(path);
  map.set(urlKey(url), {
    username: credential.username,
    token: credential.token,
    token_id: credential.tokenId,
    saved_at: credential.savedAt,
  });
  await writeUrlMap(path, map);
  return path;
}

/** Forget the session for a registry URL; true when there was one. */
export async function forgetCredential(spaces: Spaces, url: string): Promise<boolean> {
  const path = credentialsPath(spaces);
  const map = await readUrlMap(path);
  if (!map.delete(urlKey(url))) return false;
  await writeUrlMap(path, map);
  return true;
}

/** `RYE_REGISTRY_TOKEN` when set, else the saved session's token, else null. */
export async function findToken(
  spaces: Spaces,
  url: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<TokenInUse | null> {
  const fromEnv = env['RYE_REGISTRY_TOKEN'];
  if (fromEnv !== undefined && fromEnv !== '') {
    return { token: fromEnv, source: 'env', username: null };
  }
  const saved = await readCredential(spaces, url);
  return saved === null
    ? null
    : { token: saved.token, source: 'credentials', username: saved.username };
}

/**
 * The token for an authenticated call, checked before any network traffic.
 *
 * @throws RyeError REGISTRY_AUTH_REQUIRED
 */
export async function requireToken(
  spaces: Spaces,
  url: string,
  env: Readonly<Record<string, string | undefined>>,
  verb: string,
): Promise<TokenInUse> {
  const found = await findToken(spaces, url, env);
  if (found !== null) return found;
  throw new RyeError(
    'REGISTRY_AUTH_REQUIRED',
    `Cannot ${verb}: not logged in to ${url} (no saved token and RYE_REGISTRY_TOKEN is unset)`,
    { registry: url },
  );
}
