/**
 * `rye registry keys add`: register the user's author key with proof of
 * possession (src/registry/key-proof.ts); `rye registry keys remove`.
 */
import { RyeError } from '../../errors/index.js';
import { readSigner } from '../../integrity/index.js';
import { keyDir } from '../../items/index.js';
import { signKeyProof } from '../key-proof.js';
import { requireToken } from './credentials.js';
import {
  parseFingerprintDocument,
  parseKeyChallengeDocument,
  parseKeyRemovedDocument,
} from './documents.js';
import { badResponse } from './http.js';
import { pinnedRegistryKey } from './registry-key.js';
import type { RegistrySession } from './session.js';

/**
 * Register the user's key (`<user>/.ai/keys/`) as an author key of the
 * account: check the registry key against the pin, ask for a challenge, sign
 * it with the private key, and send the public key with the proof. The proof
 * names the pinned registry key, so another registry cannot replay it.
 *
 * @throws RyeError REGISTRY_AUTH_REQUIRED, KEY_NOT_FOUND, KEY_INVALID (before
 *   any network call), REGISTRY_KEY_CHANGED, REGISTRY_INSECURE_TRANSPORT,
 *   REGISTRY_KEY_TAKEN, REGISTRY_KEY_PROOF_EXPIRED, REGISTRY_KEY_PROOF_REUSED,
 *   REGISTRY_KEY_PROOF_INVALID, REGISTRY_BAD_RESPONSE (a challenge for another
 *   registry or account, or another fingerprint registered), transport codes
 */
export async function addAuthorKey(
  session: RegistrySession,
): Promise<Record<string, unknown> & { ok: true }> {
  const { url } = session.endpoint;
  const token = await requireToken(session.spaces, url, session.env, 'register a key');
  const signer = await readSigner(keyDir(session.spaces));
  const registry = await pinnedRegistryKey(session);
  const asked = await session.http.json({
    method: 'POST',
    path: '/v1/keys/challenge',
    token: token.token,
  });
  const challenge = parseKeyChallengeDocument(asked.value, url);
  if (challenge.registry_fingerprint !== registry.fingerprint)
    throw badResponse(
      url,
      `its challenge names registry key ${challenge.registry_fingerprint}, not the pinned ${registry.fingerprint}`,
    );
  if (token.username !== null && challenge.username !== token.username)
    throw badResponse(
      url,
      `its challenge is for account ${challenge.username}, not ${token.username}`,
    );
  const signature = signKeyProof(signer.privateKey, {
    registryFingerprint: registry.fingerprint,
    username: challenge.username,
    keyFingerprint: signer.fingerprint,
    challenge: challenge.challenge,
  });
  const { status, value } = await session.http.json({
    method: 'POST',
    path: '/v1/keys',
    token: token.token,
    json: { public_key: signer.publicKeyPem, challenge: challenge.challenge, signature },
  });
  const doc = parseFingerprintDocument(value, url);
  if (doc.fingerprint !== signer.fingerprint) {
    throw new RyeError(
      'REGISTRY_BAD_RESPONSE',
      `Cannot use the answer of the registry at ${url}: it registered key ${doc.fingerprint}, not ${signer.fingerprint}`,
      { registry: url, expected: signer.fingerprint, actual: doc.fingerprint },
    );
  }
  return {
    ok: true,
    action: 'keys_add',
    registry: url,
    fingerprint: signer.fingerprint,
    status: status === 201 ? 'added' : 'already_registered',
  };
}

/**
 * Remove an author key from the account (default: the user's own key, from
 * `<user>/.ai/keys/`): the registry accepts no new push signed by it, keeps
 * serving what it signed, and keeps the fingerprint bound to the account
 * (`rye registry keys add` makes it active again). Needs only the token.
 *
 * @throws RyeError REGISTRY_AUTH_REQUIRED, USAGE_INVALID_ARGUMENT (a malformed
 *   fingerprint), KEY_NOT_FOUND / KEY_INVALID (no fingerprint given and no key
 *   here; all before any network call), REGISTRY_NOT_FOUND (not a key of the
 *   account), REGISTRY_BAD_RESPONSE, transport codes
 */
export async function removeAuthorKey(
  session: RegistrySession,
  fingerprint?: string,
): Promise<Record<string, unknown> & { ok: true }> {
  const { url } = session.endpoint;
  const token = await requireToken(session.spaces, url, session.env, 'remove a key');
  if (fingerprint !== undefined && !/^[0-9a-f]{16}$/.test(fingerprint)) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot remove key "${fingerprint.slice(0, 40)}": a fingerprint is 16 lowercase hex characters (\`rye registry keys list\` shows yours)`,
      {},
    );
  }
  const target = fingerprint ?? (await readSigner(keyDir(session.spaces))).fingerprint;
  const { value } = await session.http.json({
    method: 'DELETE',
    path: `/v1/keys/${target}`,
    token: token.token,
  });
  const doc = parseKeyRemovedDocument(value, url);
  if (doc.fingerprint !== target) {
    throw new RyeError(
      'REGISTRY_BAD_RESPONSE',
      `Cannot use the answer of the registry at ${url}: it removed key ${doc.fingerprint}, not ${target}`,
      { registry: url, expected: target, actual: doc.fingerprint },
    );
  }
  return {
    ok: true,
    action: 'keys_remove',
    registry: url,
    fingerprint: target,
    status: doc.status,
  };
}
