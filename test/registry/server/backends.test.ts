import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicKey, verifyText, trustSetOf } from '../../../src/integrity/index.js';
import { assertStatementSigned, parseStatement } from '../../../src/registry/index.js';
import {
  expectRefused,
  makeAuthor,
  makeRegistry,
  toolPush,
  type Backend,
  type TestRegistry,
} from './fixtures.js';

describe.each<Backend>(['sqlite', 'postgres'])('the core flow on %s', (backend) => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await makeRegistry({ backend });
  });
  afterAll(async () => {
    await registry.close();
  });

  it('signs up, registers a key, pushes, pulls an attested item, revokes the token', async () => {
    expect((await registry.call('GET', '/health')).json).toEqual({ status: 'ok', store: backend });
    const alice = await makeAuthor(registry, 'alice');
    const pushed = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: toolPush(alice.signer, 'alice'),
    });
    expect(pushed.status).toBe(201);
    const pulled = await registry.call('GET', '/v1/items/tool/alice/utils/greet');
    expect(pulled.status).toBe(200);
    expect(pulled.json).toEqual(pushed.json);

    const registryKey = parsePublicKey(registry.key.publicKeyPem);
    const trust = trustSetOf([
      { ...registryKey, owner: 'registry', attestation: '', source: null },
    ]);
    const served = verifyText(pulled.json.content, { itemType: 'tool', extension: '.py', trust });
    expect(served.verdict).toBe('ok');
    expect(served.provenance).toBe('rye-registry@alice');
    assertStatementSigned(
      registryKey.key,
      pulled.json.attestation.statement,
      pulled.json.attestation.signature,
    );
    expect(parseStatement(pulled.json.attestation.statement).content_hash).toBe(served.contentHash);

    const replay = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: toolPush(alice.signer, 'alice'),
    });
    expect(replay.status).toBe(200);
    expect(replay.json.attestation).toEqual(pushed.json.attestation);
    const conflict = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: toolPush(alice.signer, 'alice', { extra: 'Y = 2' }),
    });
    expectRefused(conflict, 409, 'REGISTRY_VERSION_CONFLICT');

    const session = await registry.call('POST', '/v1/sessions', {
      body: { username: 'alice', password: 'password-123' },
    });
    expect(session.status).toBe(201);
    const wrong = await registry.call('POST', '/v1/sessions', {
      body: { username: 'alice', password: 'password-999' },
    });
    expectRefused(wrong, 401, 'REGISTRY_AUTH_INVALID');
    expect(
      (await registry.call('DELETE', '/v1/tokens/current', { token: alice.token })).status,
    ).toBe(204);
    expectRefused(
      await registry.call('GET', '/v1/whoami', { token: alice.token }),
      401,
      'REGISTRY_AUTH_INVALID',
    );
    expectRefused(
      await registry.call('POST', '/v1/accounts', {
        body: { username: 'alice', password: 'password-123' },
      }),
      409,
      'REGISTRY_USERNAME_TAKEN',
    );
  });
});
