import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  credentialsPath,
  findToken,
  knownRegistriesPath,
  readCredential,
  readPin,
  saveCredential,
  savePin,
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

describe('pins and tokens are keyed by the canonical origin (issue 11)', () => {
  const PEM =
    '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAyTQsm69c+DRjDGNxYXqmLgmfCRM/Mc7/vsio9DnAwAw=\n-----END PUBLIC KEY-----\n';
  const FP = '750b67a51a5e9325';
  const entry = { fingerprint: FP, public_key: PEM, pinned_at: '2025-01-01T00:00:00Z' };

  it('reads a pin file written before (default port left out), and writes it back canonical', async () => {
    const { spaces } = clientSpaces();
    const path = knownRegistriesPath(spaces);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, JSON.stringify({ 'https://r.example': entry }));
    for (const spelling of ['https://r.example', 'https://R.Example:443/', 'https://r.example.'])
      expect(await readPin(spaces, spelling)).toMatchObject({ fingerprint: FP });
    expect(await readPin(spaces, 'http://r.example')).toBeNull();
    await savePin(spaces, 'http://127.0.0.1:9', {
      fingerprint: FP,
      publicKeyPem: PEM,
      pinnedAt: '',
    });
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object)).toEqual([
      'http://127.0.0.1:9',
      'https://r.example:443',
    ]);
  });

  it('localhost and 127.0.0.1 are separate origins with separate pins', async () => {
    const { spaces } = clientSpaces();
    await savePin(spaces, 'http://localhost:8080', {
      fingerprint: FP,
      publicKeyPem: PEM,
      pinnedAt: '',
    });
    expect(await readPin(spaces, 'http://localhost:8080')).not.toBeNull();
    expect(await readPin(spaces, 'http://127.0.0.1:8080')).toBeNull();
  });

  it('refuses two different entries that name one origin, never picking one', async () => {
    const { spaces } = clientSpaces();
    const path = knownRegistriesPath(spaces);
    mkdirSync(join(path, '..'), { recursive: true });
    const other = { ...entry, fingerprint: '0123456789abcdef' };
    writeFileSync(
      path,
      JSON.stringify({ 'https://r.example': entry, 'https://r.example:443': other }),
    );
    const refused = await refusal(readPin(spaces, 'https://r.example'));
    expect(refused.code).toBe('FILE_UNREADABLE');
    expect(refused.message).toContain(
      'two different entries name the registry https://r.example:443',
    );
  });

  it('a saved token is found under any spelling of its origin', async () => {
    const { spaces } = clientSpaces();
    const path = credentialsPath(spaces);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(
      path,
      JSON.stringify({ 'https://r.example': { username: 'alice', token: 'tk' } }),
    );
    expect(await readCredential(spaces, 'https://r.example:443')).toMatchObject({ token: 'tk' });
  });
});
