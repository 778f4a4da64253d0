/**
 * TOFU only where it is safe (issue 11): plain HTTP is trusted on first use
 * only on loopback; another host needs https:// or a key pinned first, and
 * never gets a credential over plain HTTP. The "remote" registry here is a
 * loopback server reached through a fetch that rewrites the host, so the
 * client believes it talks to http://registry.example.
 */
import { describe, expect, it } from 'vitest';
import {
  openAccountSession,
  openSession,
  pullItem,
  repinRegistryKey,
  search,
  whoami,
} from '../../../src/registry/index.js';
import { readPin, saveCredential, type FetchFn } from '../../../src/registry/client/index.js';
import { KNOWLEDGE } from '../../helpers/items.js';
import { refusal } from '../../helpers/refusal.js';
import {
  clientSpaces,
  itemAnswer,
  makeKey,
  serveIndex,
  serveKey,
  startFakeRegistry,
  type FakeRegistry,
} from './fixtures.js';
import type { Spaces } from '../../../src/items/index.js';

const REMOTE = 'http://registry.example';
const CANONICAL = 'http://registry.example:80';

/** A session with REMOTE whose requests land on `fake`. */
function remoteSession(spaces: Spaces, fake: FakeRegistry, env: NodeJS.ProcessEnv = {}) {
  const redirect: FetchFn = (input, init) =>
    fetch(String(input).replace(CANONICAL, fake.url).replace(REMOTE, fake.url), init);
  return openSession({ spaces, registry: REMOTE, env, fetch: redirect });
}

describe('plain HTTP to a host that is not loopback', () => {
  it('is refused before any request while no key is pinned (pull, search, login)', async () => {
    const fake = await startFakeRegistry();
    serveKey(fake, makeKey());
    const { spaces } = clientSpaces();
    const session = remoteSession(spaces, fake);
    expect(session.endpoint).toMatchObject({ url: CANONICAL, transport: 'insecure' });
    const refused = [
      await refusal(pullItem(session, { itemType: 'tool', ref: 'alice/utils/greet' })),
      await refusal(search(session, { query: 'x' })),
      await refusal(openAccountSession(session, 'login', 'alice', 'pw-secret-123')),
    ];
    expect(refused.map((r) => r.code)).toEqual([
      'REGISTRY_INSECURE_TRANSPORT',
      'REGISTRY_INSECURE_TRANSPORT',
      'REGISTRY_INSECURE_TRANSPORT',
    ]);
    expect(refused[0]?.message).toContain('rye registry pin --registry http://registry.example:80');
    expect(fake.seen).toEqual([]);
    expect(await readPin(spaces, CANONICAL)).toBeNull();
  });

  it('works once pinned explicitly: pulls verify against the pin', async () => {
    const fake = await startFakeRegistry();
    const registry = makeKey();
    const author = makeKey();
    serveKey(fake, registry);
    const { doc } = itemAnswer({
      registry,
      author,
      itemType: 'knowledge',
      extension: '.md',
      text: KNOWLEDGE('readme'),
      namespace: 'alice',
      itemId: 'notes/readme',
      version: '1.0.0',
    });
    fake.routes.set('GET /v1/items/knowledge/alice/notes/readme', { json: doc });
    serveIndex(fake, registry, [doc]);
    const { spaces } = clientSpaces();
    const pinned = await repinRegistryKey(remoteSession(spaces, fake), registry.signer.fingerprint);
    expect(pinned.fingerprint).toBe(registry.signer.fingerprint);
    const session = remoteSession(spaces, fake);
    const pulled = await pullItem(session, { itemType: 'knowledge', ref: 'alice/notes/readme' });
    expect(pulled).toMatchObject({ ok: true, registry: CANONICAL });
    expect(fake.seen[0]).toBe('GET /.well-known/rye-registry.json');
  });

  it('never carries a token or a password, even with a pinned key', async () => {
    const fake = await startFakeRegistry();
    const registry = makeKey();
    serveKey(fake, registry);
    const { spaces } = clientSpaces();
    await repinRegistryKey(remoteSession(spaces, fake), registry.signer.fingerprint);
    fake.seen.splice(0);
    await saveCredential(spaces, REMOTE, {
      username: 'alice',
      token: 'rye_secret',
      tokenId: '',
      savedAt: '',
    });
    const refused = [
      await refusal(whoami(remoteSession(spaces, fake))),
      await refusal(
        openAccountSession(remoteSession(spaces, fake), 'login', 'alice', 'pw-12345678'),
      ),
    ];
    expect(refused.map((r) => r.code)).toEqual([
      'REGISTRY_INSECURE_TRANSPORT',
      'REGISTRY_INSECURE_TRANSPORT',
    ]);
    expect(fake.seen.filter((line) => !line.includes('/.well-known/'))).toEqual([]);
  });
});
