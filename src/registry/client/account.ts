/**
 * Account operations: signup, login, logout and whoami. Tokens
 * are saved per registry URL in user space (credentials.json, mode 0600).
 */
import { isRyeError, RyeError } from '../../errors/index.js';
import { formatTimestamp } from '../../integrity/index.js';
import { isUsername } from '../names.js';
import { findToken, forgetCredential, requireToken, saveCredential } from './credentials.js';
import { parseSessionDocument, parseWhoamiDocument } from './documents.js';
import type { RegistrySession } from './session.js';

/** Largest password accepted (the server hashes it; this only bounds the request). */
const MAX_PASSWORD_BYTES = 1024;

/**
 * Create an account (`signup`) or a session (`login`) and save its token.
 *
 * @throws RyeError REGISTRY_REF_INVALID (username), USAGE_INVALID_ARGUMENT
 *   (empty or huge password), REGISTRY_USERNAME_TAKEN, REGISTRY_AUTH_INVALID,
 *   and the transport's codes.
 */
export async function openAccountSession(
  session: RegistrySession,
  mode: 'signup' | 'login',
  username: string,
  password: string,
): Promise<Record<string, unknown> & { ok: true }> {
  const shown = username.slice(0, 60);
  if (!isUsername(username)) {
    throw new RyeError(
      'REGISTRY_REF_INVALID',
      `Cannot ${mode === 'signup' ? 'sign up' : 'log in'} as "${shown}": usernames are 2-39 characters [a-z0-9_-], starting with a letter or digit`,
      { username: shown },
    );
  }
  if (password === '' || Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot ${mode === 'signup' ? 'sign up' : 'log in'}: the password is empty or longer than ${MAX_PASSWORD_BYTES} bytes`,
      {},
    );
  }
  const { url } = session.endpoint;
  const { value } = await session.http.json({
    method: 'POST',
    path: mode === 'signup' ? '/v1/accounts' : '/v1/sessions',
    json: { username, password },
    credentials: true,
  });
  const doc = parseSessionDocument(value, url);
  const path = await saveCredential(session.spaces, url, {
    username: doc.username,
    token: doc.token,
    tokenId: doc.token_id,
    savedAt: formatTimestamp(new Date()),
  });
  return {
    ok: true,
    action: mode,
    registry: url,
    username: doc.username,
    token_id: doc.token_id,
    credentials_path: path,
  };
}

/**
 * Revoke the token in use on the registry when it answers, and always forget
 * the saved one for this registry.
 */
export async function logout(
  session: RegistrySession,
): Promise<Record<string, unknown> & { ok: true }> {
  const { url } = session.endpoint;
  const token = await findToken(session.spaces, url, session.env);
  let revoked = false;
  let revokeError: { code: string; message: string } | null = null;
  if (token !== null) {
    try {
      await session.http.ok({ method: 'DELETE', path: '/v1/tokens/current', token: token.token });
      revoked = true;
    } catch (error) {
      if (!isRyeError(error)) throw error;
      revokeError = { code: error.code, message: error.message };
    }
  }
  const forgotten = await forgetCredential(session.spaces, url);
  return {
    ok: true,
    action: 'logout',
    registry: url,
    revoked,
    forgotten,
    ...(revokeError === null ? {} : { revoke_error: revokeError }),
    ...(token?.source === 'env' ? { note: 'RYE_REGISTRY_TOKEN is still set' } : {}),
  };
}

/** @throws RyeError REGISTRY_AUTH_REQUIRED, REGISTRY_AUTH_INVALID, transport codes */
export async function whoami(
  session: RegistrySession,
): Promise<Record<string, unknown> & { ok: true }> {
  const { url } = session.endpoint;
  const token = await requireToken(session.spaces, url, session.env, 'ask who you are');
  const { value } = await session.http.json({
    method: 'GET',
    path: '/v1/whoami',
    token: token.token,
  });
  const doc = parseWhoamiDocument(value, url);
  return {
    ok: true,
    action: 'whoami',
    registry: url,
    username: doc.username,
    token_id: doc.token_id,
    token_source: token.source,
    keys: doc.keys,
  };
}
