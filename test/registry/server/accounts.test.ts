import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../../src/integrity/index.js';
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

const signUp = (username: string, password = 'password-123') =>
  registry.call('POST', '/v1/accounts', { body: { username, password } });

describe('accounts and sessions', () => {
  it('sign-up answers a session whose token works for whoami', async () => {
    const session = await signUp('alice');
    expect(session.status).toBe(201);
    expect(session.json).toEqual({
      username: 'alice',
      token: expect.stringMatching(/^rye_[A-Za-z0-9_-]{43}$/),
      token_id: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const whoami = await registry.call('GET', '/v1/whoami', { token: session.json.token });
    expect(whoami.status).toBe(200);
    expect(whoami.json).toEqual({ username: 'alice', token_id: session.json.token_id, keys: [] });
  });

  it('log-in makes a second, independent token', async () => {
    const first = await signUp('alice');
    const second = await registry.call('POST', '/v1/sessions', {
      body: { username: 'alice', password: 'password-123' },
    });
    expect(second.status).toBe(201);
    expect(second.json.token).not.toBe(first.json.token);
    const whoami = await registry.call('GET', '/v1/whoami', { token: second.json.token });
    expect(whoami.json.token_id).toBe(second.json.token_id);
  });

  it('refuses a duplicate username (409 REGISTRY_USERNAME_TAKEN)', async () => {
    await signUp('alice');
    expectRefused(await signUp('alice', 'other-password'), 409, 'REGISTRY_USERNAME_TAKEN');
  });

  it.each(['A', 'Alice', 'al ice', '-alice', 'a'.repeat(40), '../x', 'alice/x', ''])(
    'refuses the bad username %j (400)',
    async (username) => {
      expectRefused(await signUp(username), 400, 'REGISTRY_INVALID_REQUEST');
    },
  );

  it('refuses passwords shorter than 8 or longer than 1024 characters', async () => {
    expectRefused(await signUp('alice', 'short'), 400, 'REGISTRY_INVALID_REQUEST');
    expectRefused(await signUp('alice', 'x'.repeat(1025)), 400, 'REGISTRY_INVALID_REQUEST');
  });

  it('refuses malformed JSON, non-objects, wrong types and unknown fields (400)', async () => {
    for (const body of ['{"username":', '[1]', '"x"', 'null']) {
      expectRefused(
        await registry.call('POST', '/v1/accounts', { body }),
        400,
        'REGISTRY_INVALID_REQUEST',
      );
    }
    for (const body of [
      { username: 'alice', password: 12345678 },
      { username: 'alice' },
      { username: 'alice', password: 'password-123', admin: true },
    ]) {
      expectRefused(
        await registry.call('POST', '/v1/accounts', { body }),
        400,
        'REGISTRY_INVALID_REQUEST',
      );
    }
  });

  it('answers a wrong password and an unknown user alike (401 REGISTRY_AUTH_INVALID)', async () => {
    await signUp('alice');
    const wrong = await registry.call('POST', '/v1/sessions', {
      body: { username: 'alice', password: 'password-124' },
    });
    const unknown = await registry.call('POST', '/v1/sessions', {
      body: { username: 'bob', password: 'password-123' },
    });
    expectRefused(wrong, 401, 'REGISTRY_AUTH_INVALID');
    expectRefused(unknown, 401, 'REGISTRY_AUTH_INVALID');
    expect(wrong.json.error.message).toBe(unknown.json.error.message);
  });
});

describe('tokens', () => {
  it('refuses calls without a token (401 REGISTRY_AUTH_REQUIRED)', async () => {
    expectRefused(await registry.call('GET', '/v1/whoami'), 401, 'REGISTRY_AUTH_REQUIRED');
  });

  it.each(['Bearer', 'Basic abc', 'Bearer rye_short', `Bearer rye_${'A'.repeat(43)}`, 'rye_x'])(
    'refuses the malformed or unknown authorization %j (401 REGISTRY_AUTH_INVALID)',
    async (authorization) => {
      const answer = await registry.call('GET', '/v1/whoami', { headers: { authorization } });
      expectRefused(answer, 401, 'REGISTRY_AUTH_INVALID');
    },
  );

  it('DELETE /v1/tokens/current revokes the token used', async () => {
    const { token } = (await signUp('alice')).json;
    const revoked = await registry.call('DELETE', '/v1/tokens/current', { token });
    expect(revoked.status).toBe(204);
    expectRefused(
      await registry.call('GET', '/v1/whoami', { token }),
      401,
      'REGISTRY_AUTH_INVALID',
    );
  });

  it('DELETE /v1/tokens/:id revokes another token of the account, 404 for any other id', async () => {
    const first = (await signUp('alice')).json;
    const second = (
      await registry.call('POST', '/v1/sessions', {
        body: { username: 'alice', password: 'password-123' },
      })
    ).json;
    const bob = (await signUp('bob')).json;
    const notBobs = await registry.call('DELETE', `/v1/tokens/${first.token_id}`, {
      token: bob.token,
    });
    expectRefused(notBobs, 404, 'REGISTRY_NOT_FOUND');
    expectRefused(
      await registry.call('DELETE', '/v1/tokens/zz', { token: first.token }),
      404,
      'REGISTRY_NOT_FOUND',
    );
    const gone = await registry.call('DELETE', `/v1/tokens/${second.token_id}`, {
      token: first.token,
    });
    expect(gone.status).toBe(204);
    const refused = await registry.call('GET', '/v1/whoami', { token: second.token });
    expectRefused(refused, 401, 'REGISTRY_AUTH_INVALID');
    expect((await registry.call('GET', '/v1/whoami', { token: first.token })).status).toBe(200);
  });
});

describe('author keys', () => {
  it('registers a key (201), again is 200, and whoami lists it', async () => {
    const { token } = (await signUp('alice')).json;
    const { signer, publicKeyPem } = makeSigner();
    const added = await registerKey(registry, token, 'alice', signer, publicKeyPem);
    expect(added.status).toBe(201);
    expect(added.json).toEqual({ fingerprint: fingerprintOf(publicKeyPem) });
    const crlf = publicKeyPem.replace(/\n/g, '\r\n');
    const again = await registerKey(registry, token, 'alice', signer, crlf);
    expect(again.status).toBe(200);
    const whoami = await registry.call('GET', '/v1/whoami', { token });
    expect(whoami.json.keys).toEqual([
      { fingerprint: fingerprintOf(publicKeyPem), added_at: '2026-01-02T03:04:05Z' },
    ]);
  });

  it("refuses another account's key (409 REGISTRY_KEY_TAKEN), even with its private key", async () => {
    const alice = await makeAuthor(registry, 'alice');
    const { token } = (await signUp('bob')).json;
    // Only a holder of the private key gets this far (keys.test.ts has the
    // squatter without it): one account per author key still holds.
    const answer = await registerKey(registry, token, 'bob', alice.signer, alice.publicKeyPem);
    expectRefused(answer, 409, 'REGISTRY_KEY_TAKEN');
  });

  it('refuses text that is not an Ed25519 public key (422 KEY_INVALID), and no token (401)', async () => {
    const { token } = (await signUp('alice')).json;
    const bad = await registry.call('POST', '/v1/keys', {
      token,
      body: { public_key: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n' },
    });
    expectRefused(bad, 422, 'KEY_INVALID');
    const anonymous = await registry.call('POST', '/v1/keys', {
      body: { public_key: makeSigner().publicKeyPem },
    });
    expectRefused(anonymous, 401, 'REGISTRY_AUTH_REQUIRED');
  });
});
