import type { Hono, MiddlewareHandler } from 'hono';
import { RyeError } from '../../errors/index.js';
import { formatTimestamp, parsePublicKey } from '../../integrity/index.js';
import { KEY_CHALLENGE_RE, keyProofVerifies } from '../key-proof.js';
import type { KeyChallengeDocument, KeyRemovedDocument, WhoamiDocument } from '../wire.js';
import { requireToken } from './auth.js';
import { readJsonFields, stringField, type Fields } from './body.js';
import type { RegistryEnv, ServerContext } from './context.js';
import { invalidRequest, notFound } from './errors.js';
import { KeyChallenges } from './key-challenges.js';

/** An SPKI PEM of an Ed25519 key is ~113 bytes; this leaves room for comments and CRLFs. */
const MAX_PEM_LENGTH = 4096;

const FINGERPRINT_RE = /^[0-9a-f]{16}$/;

/** `GET /v1/whoami`, `POST /v1/keys/challenge`, `POST /v1/keys`, `DELETE /v1/keys/:fingerprint`. */
export function addKeyRoutes(
  app: Hono<RegistryEnv>,
  ctx: ServerContext,
  json: MiddlewareHandler,
): void {
  const { store } = ctx;
  const auth = requireToken(store);
  const challenges = new KeyChallenges(ctx.now);

  app.get('/v1/whoami', auth, async (c) => {
    const token = c.get('token');
    const keys = await store.listKeys(token.accountId);
    const document: WhoamiDocument = {
      username: token.username,
      token_id: token.tokenId,
      keys: keys
        .filter((k) => k.removedAt === null)
        .map((k) => ({ fingerprint: k.fingerprint, added_at: k.addedAt })),
    };
    return c.json(document);
  });

  app.post('/v1/keys/challenge', auth, async (c) => {
    const token = c.get('token');
    const issued = challenges.issue(token.accountId);
    const document: KeyChallengeDocument = {
      challenge: issued.challenge,
      registry_fingerprint: ctx.key.fingerprint,
      username: token.username,
      expires_at: formatTimestamp(issued.expiresAt),
    };
    return c.json(document, 201);
  });

  // Only a holder of the private key can register a public key: otherwise
  // anyone could claim another author's key and, since one key belongs to one
  // account, lock its owner out of publishing with it.
  app.post('/v1/keys', auth, json, async (c) => {
    const token = c.get('token');
    const body = await readJsonFields(c, ['public_key', 'challenge', 'signature']);
    const info = parsePublicKey(stringField(body, 'public_key', MAX_PEM_LENGTH));
    const { challenge, signature } = proofFields(body);
    challenges.take(token.accountId, challenge);
    const fields = {
      registryFingerprint: ctx.key.fingerprint,
      username: token.username,
      keyFingerprint: info.fingerprint,
      challenge,
    };
    if (!keyProofVerifies(info.key, fields, signature)) {
      throw new RyeError(
        'REGISTRY_KEY_PROOF_INVALID',
        `Cannot register key ${info.fingerprint}: the challenge is not signed by its private key; only the key's holder can register it`,
        { fingerprint: info.fingerprint },
      );
    }
    const outcome = await store.addKey(
      token.accountId,
      info.fingerprint,
      info.publicKeyPem,
      formatTimestamp(ctx.now()),
    );
    ctx.authorKeys.remember(info.fingerprint, info.publicKeyPem);
    return c.json({ fingerprint: info.fingerprint }, outcome === 'added' ? 201 : 200);
  });

  // Removing needs only the account's token, like revoking a token: a lost or
  // leaked key must be stoppable by its owner without the key itself.
  app.delete('/v1/keys/:fingerprint', auth, async (c) => {
    const token = c.get('token');
    const fingerprint = c.req.param('fingerprint');
    if (!FINGERPRINT_RE.test(fingerprint))
      throw invalidRequest('Cannot remove the key: a fingerprint is 16 lowercase hex characters');
    const outcome = await store.removeKey(token.accountId, fingerprint, formatTimestamp(ctx.now()));
    if (outcome === 'not_found')
      throw notFound(`Cannot remove key ${fingerprint}: it is not registered to your account`);
    const document: KeyRemovedDocument = { fingerprint, status: outcome };
    return c.json(document);
  });
}

/** @throws RyeError REGISTRY_KEY_PROOF_MISSING, REGISTRY_INVALID_REQUEST */
function proofFields(body: Fields): { challenge: string; signature: string } {
  if (body['challenge'] === undefined || body['signature'] === undefined) {
    throw new RyeError(
      'REGISTRY_KEY_PROOF_MISSING',
      'Cannot register the key: send the challenge from POST /v1/keys/challenge and its signature by the key (proof of possession)',
      {},
    );
  }
  const challenge = stringField(body, 'challenge', 64);
  const signature = stringField(body, 'signature', 128);
  if (!KEY_CHALLENGE_RE.test(challenge)) {
    throw new RyeError(
      'REGISTRY_KEY_PROOF_INVALID',
      'Cannot register the key: the challenge is not one this registry issues',
      {},
    );
  }
  return { challenge, signature };
}
