/**
 * No credential reaches a registry whose key does not match the pin (issue
 * 11): a loopback server that swaps its key records every request; each
 * authenticated operation must leave it with no Authorization header and no
 * password, only the one key-document request.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBundle } from '../../../src/bundle/index.js';
import { generateKeyFiles, signText } from '../../../src/integrity/index.js';
import { ensureSelfTrusted, keyDir, type Spaces } from '../../../src/items/index.js';
import {
  addAuthorKey,
  logout,
  openAccountSession,
  pushBundle,
  pushItem,
  whoami,
  yank,
} from '../../../src/registry/index.js';
import { saveCredential, savePin } from '../../../src/registry/client/index.js';
import { PYTHON_TOOL } from '../../helpers/items.js';
import { makeSigner } from '../../helpers/keys.js';
import { refusal } from '../../helpers/refusal.js';
import { clientSpaces, keyDocument, makeKey, sessionFor, type TestKey } from './fixtures.js';

const PASSWORD = 'pw-never-leaves-1';
const TOKEN = `rye_${'t'.repeat(43)}`;

interface Seen {
  readonly line: string;
  readonly authorization: string | undefined;
  readonly body: string;
}

/** A loopback server that serves `key` and records everything it receives. */
async function recordingRegistry(key: TestKey) {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        line: `${req.method ?? ''} ${req.url ?? ''}`,
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (req.url === '/.well-known/rye-registry.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(keyDocument(key)));
        return;
      }
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'REGISTRY_AUTH_INVALID', message: 'recorded' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url, seen };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A client that pinned `pinned` for `url`, is logged in, and has a key, an item and a bundle. */
async function clientFor(url: string, pinned: TestKey): Promise<Spaces> {
  const { spaces } = clientSpaces();
  await savePin(spaces, url, { ...keyDocFields(pinned), pinnedAt: '2026-01-01T00:00:00Z' });
  await saveCredential(spaces, url, {
    username: 'alice',
    token: TOKEN,
    tokenId: '0123456789abcdef',
    savedAt: '',
  });
  const key = await generateKeyFiles(keyDir(spaces));
  const { signer, publicKeyPem } = makeSigner('alice');
  await ensureSelfTrusted(spaces, { fingerprint: signer.fingerprint, publicKeyPem });
  const tool = signText(PYTHON_TOOL('utils'), { itemType: 'tool', extension: '.py', signer });
  mkdirSync(join(spaces.project, '.ai/tools/utils'), { recursive: true });
  writeFileSync(join(spaces.project, '.ai/tools/utils/greet.py'), tool.text);
  mkdirSync(join(spaces.project, '.ai/tools/apps/demo'), { recursive: true });
  writeFileSync(join(spaces.project, '.ai/tools/apps/demo/run.py'), tool.text);
  await createBundle({ spaces, bundleId: 'apps/demo', version: '1.0.0', signer });
  expect(key.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  return spaces;
}

function keyDocFields(key: TestKey): { fingerprint: string; publicKeyPem: string } {
  return { fingerprint: key.signer.fingerprint, publicKeyPem: key.publicKeyPem };
}

const OPERATIONS: Record<string, (spaces: Spaces, url: string) => Promise<unknown>> = {
  signup: (s, url) => openAccountSession(sessionFor(s, url), 'signup', 'alice', PASSWORD),
  login: (s, url) => openAccountSession(sessionFor(s, url), 'login', 'alice', PASSWORD),
  whoami: (s, url) => whoami(sessionFor(s, url)),
  push: (s, url) =>
    pushItem(sessionFor(s, url), { itemType: 'tool', itemId: 'utils/greet', version: '1.0.0' }),
  'push-bundle': (s, url) => pushBundle(sessionFor(s, url), { bundleId: 'apps/demo' }),
  yank: (s, url) => yank(sessionFor(s, url), 'tool', 'alice/utils/greet', '1.0.0', false),
  'keys add': (s, url) => addAuthorKey(sessionFor(s, url)),
};

describe('a registry whose key does not match the pin receives no credential', () => {
  it.each(Object.keys(OPERATIONS))('%s: REGISTRY_KEY_CHANGED after one key request', async (op) => {
    const pinned = makeKey();
    const server = await recordingRegistry(makeKey());
    const spaces = await clientFor(server.url, pinned);
    const refused = await refusal(OPERATIONS[op]?.(spaces, server.url) ?? Promise.resolve());
    expect(refused.code).toBe('REGISTRY_KEY_CHANGED');
    expect(server.seen.map((s) => s.line)).toEqual(['GET /.well-known/rye-registry.json']);
    expect(server.seen.every((s) => s.authorization === undefined)).toBe(true);
    expect(server.seen.map((s) => s.body).join('')).toBe('');
  });

  it('logout: forgets the token here, revokes nothing there, sends no token', async () => {
    const server = await recordingRegistry(makeKey());
    const spaces = await clientFor(server.url, makeKey());
    const result = await logout(sessionFor(spaces, server.url));
    expect(result).toMatchObject({
      revoked: false,
      forgotten: true,
      revoke_error: { code: 'REGISTRY_KEY_CHANGED' },
    });
    expect(server.seen.map((s) => s.line)).toEqual(['GET /.well-known/rye-registry.json']);
    expect(server.seen.every((s) => s.authorization === undefined)).toBe(true);
  });

  it('RYE_REGISTRY_TOKEN is held back just the same', async () => {
    const server = await recordingRegistry(makeKey());
    const spaces = await clientFor(server.url, makeKey());
    const session = sessionFor(spaces, server.url, { RYE_REGISTRY_TOKEN: 'rye_from_env' });
    expect((await refusal(whoami(session))).code).toBe('REGISTRY_KEY_CHANGED');
    expect(server.seen.every((s) => s.authorization === undefined)).toBe(true);
  });

  it('control: with the pinned key served, the token is sent, after one key request', async () => {
    const key = makeKey();
    const server = await recordingRegistry(key);
    const spaces = await clientFor(server.url, key);
    expect((await refusal(whoami(sessionFor(spaces, server.url)))).code).toBe(
      'REGISTRY_AUTH_INVALID',
    );
    expect(server.seen.map((s) => [s.line, s.authorization])).toEqual([
      ['GET /.well-known/rye-registry.json', undefined],
      ['GET /v1/whoami', `Bearer ${TOKEN}`],
    ]);
  });

  it('control: with no pin, a loopback registry is pinned first, then the password is sent', async () => {
    const key = makeKey();
    const server = await recordingRegistry(key);
    const { spaces } = clientSpaces();
    await refusal(openAccountSession(sessionFor(spaces, server.url), 'login', 'alice', PASSWORD));
    expect(server.seen.map((s) => s.line)).toEqual([
      'GET /.well-known/rye-registry.json',
      'POST /v1/sessions',
    ]);
    expect(server.seen[1]?.body).toContain(PASSWORD);
  });
});
