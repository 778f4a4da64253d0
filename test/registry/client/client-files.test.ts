import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findToken,
  knownRegistriesPath,
  readCredential,
  readPin,
  saveCredential,
} from '../../../src/registry/client/index.js';
import { pullItem, pushBundle, pushItem, yank } from '../../../src/registry/index.js';
import { refusal } from '../../helpers/refusal.js';
import { clientSpaces, sessionFor, startFakeRegistry } from './fixtures.js';

const URL_A = 'http://127.0.0.1:9';

describe('credentials', () => {
  it('are saved per registry URL with mode 0600 in a 0700 folder', async () => {
    const { spaces } = clientSpaces();
    const path = await saveCredential(spaces, URL_A, {
      username: 'alice',
      token: 'secret-token',
      tokenId: 't1',
      savedAt: '2026-01-01T00:00:00Z',
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    expect(await readCredential(spaces, URL_A)).toMatchObject({ username: 'alice' });
    expect(await readCredential(spaces, 'http://other.example')).toBeNull();
  });

  it('RYE_REGISTRY_TOKEN overrides the saved token', async () => {
    const { spaces } = clientSpaces();
    await saveCredential(spaces, URL_A, {
      username: 'alice',
      token: 'saved',
      tokenId: 't1',
      savedAt: '',
    });
    expect(await findToken(spaces, URL_A, { RYE_REGISTRY_TOKEN: 'from-env' })).toMatchObject({
      token: 'from-env',
      source: 'env',
    });
    expect(await findToken(spaces, URL_A, {})).toMatchObject({ token: 'saved' });
  });

  it('push, push-bundle and yank without any token fail locally, before any request', async () => {
    const { spaces } = clientSpaces();
    const fake = await startFakeRegistry();
    const session = sessionFor(spaces, fake.url);
    const refused = [
      await refusal(pushItem(session, { itemType: 'tool', itemId: 'x', version: '1.0.0' })),
      await refusal(pushBundle(session, { bundleId: 'apps/x' })),
      await refusal(yank(session, 'tool', 'alice/x', '1.0.0', false)),
    ];
    expect(refused.map((r) => r.code)).toEqual([
      'REGISTRY_AUTH_REQUIRED',
      'REGISTRY_AUTH_REQUIRED',
      'REGISTRY_AUTH_REQUIRED',
    ]);
    expect(fake.seen).toEqual([]);
  });
});

describe('pins', () => {
  it('a damaged pin file is an error, never a silent re-pin', async () => {
    const { spaces } = clientSpaces();
    const path = knownRegistriesPath(spaces);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '{ not json');
    expect((await refusal(readPin(spaces, URL_A))).code).toBe('FILE_UNREADABLE');
    const fake = await startFakeRegistry();
    writeFileSync(
      path,
      JSON.stringify({ [fake.url]: { fingerprint: '0123456789abcdef', public_key: 'x' } }),
    );
    const pulled = pullItem(sessionFor(spaces, fake.url), { itemType: 'tool', ref: 'a1/x' });
    // The well-known route is not scripted (404): the damaged pin is found after it.
    expect((await refusal(pulled)).code).toBe('REGISTRY_NOT_FOUND');
    fake.routes.set('GET /.well-known/rye-registry.json', {
      json: {
        protocol: 1,
        algorithm: 'ed25519',
        public_key:
          '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAyTQsm69c+DRjDGNxYXqmLgmfCRM/Mc7/vsio9DnAwAw=\n-----END PUBLIC KEY-----\n',
        fingerprint: '750b67a51a5e9325',
      },
    });
    const again = pullItem(sessionFor(spaces, fake.url), { itemType: 'tool', ref: 'a1/x' });
    expect((await refusal(again)).code).toBe('FILE_UNREADABLE');
  });
});
