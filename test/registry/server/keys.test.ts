/**
 * Proof of possession for author keys (issue 11): only a holder of the
 * private key can register a public key, so nobody can claim another
 * author's key and lock its owner out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprintOf, generateKeyPair } from '../../../src/integrity/index.js';
import { keyProofMessage, signKeyProof } from '../../../src/registry/index.js';
import {
  createRegistryApp,
  openSqliteStore,
  registryKeyOf,
  type RegistryStore,
} from '../../../src/registry/server/index.js';
import { makeSigner } from '../../helpers/keys.js';
import {
  expectRefused,
  makeAuthor,
  makeRegistry,
  registerKey,
  type TestRegistry,
} from './fixtures.js';

let registry: TestRegistry;
beforeEach(async () => {
  registry = await makeRegistry();
});
afterEach(async () => {
  await registry.close();
});

const signUp = async (username: string): Promise<string> =>
  (
    await registry.call('POST', '/v1/accounts', {
      body: { username, password: 'password-123' },
    })
  ).json.token as string;

const keysOf = async (token: string): Promise<string[]> =>
  (
    (await registry.call('GET', '/v1/whoami', { token })).json.keys as { fingerprint: string }[]
  ).map((k) => k.fingerprint);

const challengeFor = async (token: string): Promise<string> => {
  const asked = await registry.call('POST', '/v1/keys/challenge', { token });
  expect(asked.status).toBe(201);
  return asked.json.challenge as string;
};

describe('POST /v1/keys/challenge', () => {
  it('issues a random challenge bound to the account, naming the registry key', async () => {
    const token = await signUp('alice');
    const asked = await registry.call('POST', '/v1/keys/challenge', { token });
    expect(asked.status).toBe(201);
    expect(asked.json).toEqual({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      registry_fingerprint: registry.key.fingerprint,
      username: 'alice',
      expires_at: '2026-01-02T03:09:05Z',
    });
    expect((await challengeFor(token)) === asked.json.challenge).toBe(false);
    expectRefused(await registry.call('POST', '/v1/keys/challenge'), 401, 'REGISTRY_AUTH_REQUIRED');
  });

  it('keeps at most 8 open challenges per account (429)', async () => {
    const token = await signUp('alice');
    for (let i = 0; i < 8; i += 1) await challengeFor(token);
    const more = await registry.call('POST', '/v1/keys/challenge', { token });
    expectRefused(more, 429, 'REGISTRY_RATE_LIMITED');
    // Another account is not affected.
    await challengeFor(await signUp('bob'));
  });
});

describe('POST /v1/keys with proof of possession', () => {
  it("a squatter cannot register another author's public key, and the owner still can", async () => {
    const victim = makeSigner('victim');
    const mallory = await signUp('mallory');
    const squatter = makeSigner('mallory');
    // Without any proof.
    const bare = await registry.call('POST', '/v1/keys', {
      token: mallory,
      body: { public_key: victim.publicKeyPem },
    });
    expectRefused(bare, 400, 'REGISTRY_KEY_PROOF_MISSING');
    // With a proof signed by the squatter's own key.
    const forged = await registerKey(
      registry,
      mallory,
      'mallory',
      squatter.signer,
      victim.publicKeyPem,
    );
    expectRefused(forged, 422, 'REGISTRY_KEY_PROOF_INVALID');
    expect(await keysOf(mallory)).toEqual([]);
    // The owner registers it as usual: not locked out.
    const owner = await signUp('victim');
    const added = await registerKey(registry, owner, 'victim', victim.signer, victim.publicKeyPem);
    expect(added.status).toBe(201);
    expect(await keysOf(owner)).toEqual([victim.signer.fingerprint]);
  });

  it('refuses a proof that names another account, registry or key (422)', async () => {
    const token = await signUp('alice');
    const { signer, publicKeyPem } = makeSigner();
    const fields = {
      registryFingerprint: registry.key.fingerprint,
      username: 'alice',
      keyFingerprint: fingerprintOf(publicKeyPem),
    };
    for (const edit of [
      { username: 'bob' },
      { registryFingerprint: '0123456789abcdef' },
      { keyFingerprint: '0123456789abcdef' },
    ]) {
      const challenge = await challengeFor(token);
      const signature = signKeyProof(signer.privateKey, { ...fields, ...edit, challenge });
      const answer = await registry.call('POST', '/v1/keys', {
        token,
        body: { public_key: publicKeyPem, challenge, signature },
      });
      expectRefused(answer, 422, 'REGISTRY_KEY_PROOF_INVALID');
    }
    expect(await keysOf(token)).toEqual([]);
  });

  it('a challenge is single use (REUSED), even after a failed attempt', async () => {
    const token = await signUp('alice');
    const { signer, publicKeyPem } = makeSigner();
    const challenge = await challengeFor(token);
    const fields = {
      registryFingerprint: registry.key.fingerprint,
      username: 'alice',
      keyFingerprint: fingerprintOf(publicKeyPem),
      challenge,
    };
    const first = await registry.call('POST', '/v1/keys', {
      token,
      body: { public_key: publicKeyPem, challenge, signature: 'A'.repeat(86) + '==' },
    });
    expectRefused(first, 422, 'REGISTRY_KEY_PROOF_INVALID');
    const replay = await registry.call('POST', '/v1/keys', {
      token,
      body: {
        public_key: publicKeyPem,
        challenge,
        signature: signKeyProof(signer.privateKey, fields),
      },
    });
    expectRefused(replay, 422, 'REGISTRY_KEY_PROOF_REUSED');
    expect(await keysOf(token)).toEqual([]);
  });

  it("refuses another account's challenge and one never issued (422 INVALID)", async () => {
    const alice = await signUp('alice');
    const bobChallenge = await challengeFor(await signUp('bob'));
    const { signer, publicKeyPem } = makeSigner();
    const fields = {
      registryFingerprint: registry.key.fingerprint,
      username: 'alice',
      keyFingerprint: fingerprintOf(publicKeyPem),
    };
    for (const challenge of [bobChallenge, 'x'.repeat(43), 'not a challenge']) {
      const signature = signKeyProof(signer.privateKey, { ...fields, challenge });
      const answer = await registry.call('POST', '/v1/keys', {
        token: alice,
        body: { public_key: publicKeyPem, challenge, signature },
      });
      expectRefused(answer, 422, 'REGISTRY_KEY_PROOF_INVALID');
    }
    expect(await keysOf(alice)).toEqual([]);
  });

  it('the signed message is domain-separated text, never a 64-hex item hash', () => {
    const message = keyProofMessage({
      registryFingerprint: 'a'.repeat(16),
      username: 'alice',
      keyFingerprint: 'b'.repeat(16),
      challenge: 'c'.repeat(43),
    }).toString('utf8');
    expect(message.startsWith('rye-registry-key-proof:v1\n')).toBe(true);
    expect(/^[0-9a-f]{64}$/.test(message)).toBe(false);
  });
});

describe('challenge expiry', () => {
  let store: RegistryStore;
  let dataDir: string;
  afterEach(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a challenge answered after five minutes is EXPIRED, and nothing is recorded', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rye-key-expiry-'));
    store = await openSqliteStore(dataDir);
    let now = new Date('2026-01-02T03:04:05Z');
    const key = registryKeyOf(generateKeyPair().privateKeyPem);
    const app = createRegistryApp({ store, key, log: () => undefined, now: () => now });
    const post = async (path: string, token: string | null, body?: unknown) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (token !== null) headers['authorization'] = `Bearer ${token}`;
      const res = await app.request(path, {
        method: 'POST',
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const token = (await post('/v1/accounts', null, { username: 'alice', password: 'pw-123456' }))
      .json['token'] as string;
    const challenge = (await post('/v1/keys/challenge', token)).json['challenge'] as string;
    const { signer, publicKeyPem } = makeSigner();
    const signature = signKeyProof(signer.privateKey, {
      registryFingerprint: key.fingerprint,
      username: 'alice',
      keyFingerprint: signer.fingerprint,
      challenge,
    });
    now = new Date(now.getTime() + 5 * 60_000);
    const late = await post('/v1/keys', token, { public_key: publicKeyPem, challenge, signature });
    expect({ status: late.status, code: late.json['error']?.code }).toEqual({
      status: 422,
      code: 'REGISTRY_KEY_PROOF_EXPIRED',
    });
    const account = await store.findAccount('alice');
    expect(await store.listKeys(account?.id ?? -1)).toEqual([]);
  });
});

describe('makeAuthor() (the fixture) registers with a proof', () => {
  it('works end to end in process', async () => {
    const alice = await makeAuthor(registry, 'alice');
    expect(await keysOf(alice.token)).toEqual([alice.signer.fingerprint]);
  });
});
