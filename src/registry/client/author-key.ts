/**
 * `rye registry keys add`: register the user's author key with proof of
 * possession (src/registry/key-proof.ts).
 */
import { RyeError } from '../../errors/index.js';
import { readSigner } from '../../integrity/index.js';
import { keyDir } from '../../items/index.js';
import { signKeyProof } from '../key-proof.js';
import { requireToken } from './credentials.js';
import { parseFingerprintDocument, parseKeyChallengeDocument } from './documents.js';
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
