import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicKey } from '../../../src/integrity/index.js';
import { assertIndexSigned, parseIndex, type PackageIndex } from '../../../src/registry/index.js';
import { IndexSigner } from '../../../src/registry/server/index.js';
import { refusal } from '../../helpers/refusal.js';
import {
  expectRefused,
  makeAuthor,
  makeRegistry,
  toolPush,
  type Author,
  type Backend,
  type TestRegistry,
} from './fixtures.js';

const INDEX = '/v1/index?kind=item&item_type=tool&namespace=alice&item_id=utils/greet';

describe.each<Backend>(['sqlite', 'postgres'])('GET /v1/index on %s', (backend) => {
  let registry: TestRegistry;
  let alice: Author;
  let clock = new Date('2026-03-01T10:00:00.400Z');
  beforeAll(async () => {
    registry = await makeRegistry({ backend, now: () => clock, index: { ttlSeconds: 7200 } });
    alice = await makeAuthor(registry, 'alice');
  });
  afterAll(async () => {
    await registry.close();
  });

  /** Fetch and check the index: signed by the registry key over its exact text. */
  async function index(): Promise<{ index: PackageIndex; body: string }> {
    const answer = await registry.call('GET', INDEX);
    expect(answer.status).toBe(200);
    const key = parsePublicKey(registry.key.publicKeyPem).key;
    assertIndexSigned(key, answer.json.index, answer.json.signature);
    return { index: parseIndex(answer.json.index), body: answer.bytes.toString('utf8') };
  }
  const push = async (version: string) => {
    const body = toolPush(alice.signer, 'alice', { version });
    const pushed = await registry.call('POST', '/v1/items', { token: alice.token, body });
    expect(pushed.status).toBe(201);
    return pushed.json;
  };
  const yank = async (version: string, yanked = true) => {
    const answer = await registry.call('POST', '/v1/yank', {
      token: alice.token,
      body: {
        kind: 'item',
        item_type: 'tool',
        namespace: 'alice',
        item_id: 'utils/greet',
        version,
        yanked,
      },
    });
    expect(answer.status).toBe(200);
  };

  it('answers 404 before anything is published, and 400 for a malformed query', async () => {
    expectRefused(await registry.call('GET', INDEX), 404, 'REGISTRY_NOT_FOUND');
    expectRefused(
      await registry.call('GET', '/v1/index?kind=item&namespace=alice&item_id=utils/greet'),
      400,
      'REGISTRY_INVALID_REQUEST',
    );
    expectRefused(
      await registry.call('GET', `${INDEX}&version=1.0.0`),
      400,
      'REGISTRY_INVALID_REQUEST',
    );
  });

  it('signs the versions, their content hashes, latest, issue time and expiry', async () => {
    const one = await push('1.0.0');
    const { index: signed } = await index();
    expect(signed).toMatchObject({
      rye_index: 1,
      registry_fingerprint: registry.key.fingerprint,
      kind: 'item',
      item_type: 'tool',
      namespace: 'alice',
      item_id: 'utils/greet',
      issued_at: '2026-03-01T10:00:00Z',
      expires_at: '2026-03-01T12:00:00Z',
      latest: '1.0.0',
      versions: [
        {
          version: '1.0.0',
          content_hash: JSON.parse(one.attestation.statement).content_hash,
          yanked: false,
        },
      ],
    });
    expect(signed.seq).toBeGreaterThan(0);
  });

  it('raises seq on every publish and yank; latest skips yanked versions', async () => {
    const seqs = [(await index()).index.seq];
    await push('1.1.0');
    seqs.push((await index()).index.seq);
    await yank('1.1.0');
    const yanked = (await index()).index;
    seqs.push(yanked.seq);
    expect(yanked.latest).toBe('1.0.0');
    expect(yanked.versions.map((v) => [v.version, v.yanked])).toEqual([
      ['1.0.0', false],
      ['1.1.0', true],
    ]);
    await yank('1.1.0', false);
    const restored = (await index()).index;
    seqs.push(restored.seq);
    expect(restored.latest).toBe('1.1.0');
    await yank('1.0.0');
    await yank('1.1.0');
    const none = (await index()).index;
    seqs.push(none.seq);
    expect(none.latest).toBeNull();
    for (let i = 1; i < seqs.length; i += 1) expect(seqs[i]).toBeGreaterThan(seqs[i - 1] as number);
    await yank('1.0.0', false);
  });

  it('re-signs an unchanged index only once it is older than the refresh interval', async () => {
    const first = await index();
    clock = new Date(clock.getTime() + 60_000);
    expect((await index()).body).toBe(first.body);
    // 7200 s validity: refreshed after a quarter of it (30 min), same seq, new times.
    clock = new Date(clock.getTime() + 30 * 60_000);
    const later = await index();
    expect(later.body).not.toBe(first.body);
    expect(later.index.seq).toBe(first.index.seq);
    expect(later.index.issued_at > first.index.issued_at).toBe(true);
    expect(Date.parse(later.index.expires_at) - Date.parse(later.index.issued_at)).toBe(7_200_000);
  });

  it('names each package on its own (a bundle and an item of one id do not share an index)', async () => {
    expectRefused(
      await registry.call('GET', '/v1/index?kind=bundle&namespace=alice&item_id=utils/greet'),
      404,
      'REGISTRY_NOT_FOUND',
    );
  });
});

describe('IndexSigner', () => {
  it('refuses a validity outside 1 s .. 31 days', async () => {
    const ctx = {} as ConstructorParameters<typeof IndexSigner>[0];
    for (const ttlSeconds of [0, 32 * 86_400, 1.5]) {
      const thrown = await refusal((async () => new IndexSigner(ctx, { ttlSeconds }))());
      expect(thrown.code).toBe('USAGE_INVALID_ARGUMENT');
    }
  });
});
