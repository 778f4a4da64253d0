import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signText } from '../../../src/integrity/index.js';
import { DIRECTIVE } from '../../helpers/items.js';
import {
  expectRefused,
  makeAuthor,
  makeRegistry,
  toolPush,
  type Author,
  type TestRegistry,
} from './fixtures.js';

let registry: TestRegistry;
let alice: Author;
let bob: Author;
beforeEach(async () => {
  registry = await makeRegistry();
  alice = await makeAuthor(registry, 'alice');
  bob = await makeAuthor(registry, 'bob');
  for (const version of ['1.0.0', '1.1.0', '2.0.0']) {
    const body = toolPush(alice.signer, 'alice', { version });
    expect((await registry.call('POST', '/v1/items', { token: alice.token, body })).status).toBe(
      201,
    );
  }
});
afterEach(async () => {
  await registry.close();
});

const yank = (token: string, version: string, yanked = true, namespace = 'alice') =>
  registry.call('POST', '/v1/yank', {
    token,
    body: { kind: 'item', item_type: 'tool', namespace, item_id: 'utils/greet', version, yanked },
  });

const versionsPath = '/v1/versions?kind=item&item_type=tool&namespace=alice&item_id=utils/greet';

describe('GET /v1/versions', () => {
  it('lists every version, oldest first, with its content hash', async () => {
    const answer = await registry.call('GET', versionsPath);
    expect(answer.status).toBe(200);
    expect(answer.json.versions.map((v: { version: string }) => v.version)).toEqual([
      '1.0.0',
      '1.1.0',
      '2.0.0',
    ]);
    expect(answer.json.versions[0]).toEqual({
      version: '1.0.0',
      yanked: false,
      published_at: '2026-01-02T03:04:05Z',
      content_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('answers 404 for an unknown package and 400 for a malformed query', async () => {
    const unknown = '/v1/versions?kind=item&item_type=tool&namespace=alice&item_id=utils/nope';
    expectRefused(await registry.call('GET', unknown), 404, 'REGISTRY_NOT_FOUND');
    for (const query of [
      'kind=item&namespace=alice&item_id=utils/greet',
      'kind=bundle&item_type=tool&namespace=alice&item_id=utils/greet',
      'kind=item&item_type=tool&namespace=alice&item_id=utils/greet&extra=1',
      'kind=item&item_type=tool&namespace=alice&namespace=bob&item_id=utils/greet',
      'kind=thing&namespace=alice&item_id=x',
    ]) {
      const answer = await registry.call('GET', `/v1/versions?${query}`);
      expectRefused(answer, 400, 'REGISTRY_INVALID_REQUEST');
    }
    const escape = await registry.call(
      'GET',
      '/v1/versions?kind=item&item_type=tool&namespace=alice&item_id=../x',
    );
    expectRefused(escape, 400, 'REGISTRY_REF_INVALID');
  });
});

describe('POST /v1/yank', () => {
  it('yanks: latest skips the version, an explicit pull still serves it marked yanked', async () => {
    const answer = await yank(alice.token, '2.0.0');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ yanked: true });
    const latest = await registry.call('GET', '/v1/items/tool/alice/utils/greet');
    expect(latest.json.version).toBe('1.1.0');
    const explicit = await registry.call('GET', '/v1/items/tool/alice/utils/greet?version=2.0.0');
    expect(explicit.status).toBe(200);
    expect(explicit.json.yanked).toBe(true);
    await yank(alice.token, '2.0.0', false);
    const back = await registry.call('GET', '/v1/items/tool/alice/utils/greet');
    expect(back.json.version).toBe('2.0.0');
  });

  it('answers 404 once every version is yanked', async () => {
    for (const v of ['1.0.0', '1.1.0', '2.0.0']) await yank(alice.token, v);
    const latest = await registry.call('GET', '/v1/items/tool/alice/utils/greet');
    expectRefused(latest, 404, 'REGISTRY_NOT_FOUND');
  });

  it('refuses a non-owner (403), an unknown version (404) and no token (401)', async () => {
    expectRefused(await yank(bob.token, '1.0.0'), 403, 'REGISTRY_FORBIDDEN');
    expectRefused(await yank(alice.token, '9.0.0'), 404, 'REGISTRY_NOT_FOUND');
    const anonymous = await registry.call('POST', '/v1/yank', {
      body: {
        kind: 'item',
        item_type: 'tool',
        namespace: 'alice',
        item_id: 'utils/greet',
        version: '1.0.0',
        yanked: true,
      },
    });
    expectRefused(anonymous, 401, 'REGISTRY_AUTH_REQUIRED');
    const notBoolean = await registry.call('POST', '/v1/yank', {
      token: alice.token,
      body: {
        kind: 'item',
        item_type: 'tool',
        namespace: 'alice',
        item_id: 'utils/greet',
        version: '1.0.0',
        yanked: 'yes',
      },
    });
    expectRefused(notBoolean, 400, 'REGISTRY_INVALID_REQUEST');
  });
});

describe('GET /v1/search', () => {
  beforeEach(async () => {
    // Declared and published versions agree (item-push checks them).
    const text = DIRECTIVE('deploy_site', 'web').replace('version="1.0.0"', 'version="0.1.0"');
    const directive = signText(text, {
      itemType: 'directive',
      extension: '.md',
      signer: bob.signer,
    }).text;
    const answer = await registry.call('POST', '/v1/items', {
      token: bob.token,
      body: {
        item_type: 'directive',
        namespace: 'bob',
        item_id: 'web/deploy_site',
        version: '0.1.0',
        extension: '.md',
        content: directive,
      },
    });
    expect(answer.status).toBe(201);
  });

  const search = async (query: string) => {
    const answer = await registry.call('GET', `/v1/search?${query}`);
    expect(answer.status).toBe(200);
    return answer.json.results as { namespace: string; item_id: string; item_type: string }[];
  };

  it('finds by text in the id, namespace or description', async () => {
    expect((await search('q=deploy')).map((r) => r.item_id)).toEqual(['web/deploy_site']);
    expect((await search('q=GREET')).map((r) => r.item_id)).toEqual(['utils/greet']);
    expect(await search('q=test%20directive')).toHaveLength(1);
    expect(await search('q=')).toHaveLength(2);
  });

  it('filters by type and namespace, and summarises versions', async () => {
    const tools = await search('item_type=tool');
    expect(tools).toEqual([
      {
        kind: 'item',
        item_type: 'tool',
        namespace: 'alice',
        item_id: 'utils/greet',
        latest_version: '2.0.0',
        versions: 3,
        description: 'Test tool',
        published_at: '2026-01-02T03:04:05Z',
      },
    ]);
    expect((await search('namespace=bob')).map((r) => r.item_id)).toEqual(['web/deploy_site']);
    expect(await search('kind=bundle')).toEqual([]);
    expect(await search('q=greet&namespace=bob')).toEqual([]);
  });

  it('honours limit (default 50, 1..200) and refuses bad parameters (400)', async () => {
    expect(await search('limit=1')).toHaveLength(1);
    for (const query of ['limit=0', 'limit=201', 'limit=x', 'kind=x', 'item_type=x', 'foo=1']) {
      const answer = await registry.call('GET', `/v1/search?${query}`);
      expectRefused(answer, 400, 'REGISTRY_INVALID_REQUEST');
    }
  });
});
