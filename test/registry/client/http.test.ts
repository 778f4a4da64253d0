import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RegistryHttp } from '../../../src/registry/client/index.js';
import { refusal } from '../../helpers/refusal.js';
import { startFakeRegistry } from './fixtures.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

describe('RegistryHttp', () => {
  it('gives up on a registry that never answers (REGISTRY_UNREACHABLE)', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const { port } = server.address() as AddressInfo;
    const http = new RegistryHttp(`http://127.0.0.1:${port}`, { timeoutMs: 200 });
    const refused = await refusal(http.json({ method: 'GET', path: '/health' }));
    expect(refused.code).toBe('REGISTRY_UNREACHABLE');
    expect(refused.message).toContain('no answer');
  });

  it('caps the answer size (REGISTRY_BAD_RESPONSE)', async () => {
    const fake = await startFakeRegistry();
    fake.routes.set('GET /big', { json: { pad: 'x'.repeat(10_000) } });
    const http = new RegistryHttp(fake.url);
    expect((await refusal(http.json({ method: 'GET', path: '/big', maxBytes: 1000 }))).code).toBe(
      'REGISTRY_BAD_RESPONSE',
    );
  });

  it('sends the bearer token and never follows a redirect', async () => {
    const fake = await startFakeRegistry();
    let auth: string | undefined;
    fake.routes.set('GET /v1/whoami', (req) => {
      auth = req.headers.authorization;
      return { status: 307, json: {} };
    });
    const http = new RegistryHttp(fake.url);
    const refused = await refusal(http.json({ method: 'GET', path: '/v1/whoami', token: 'tk' }));
    expect(refused.code).toBe('REGISTRY_BAD_RESPONSE');
    expect(auth).toBe('Bearer tk');
    expect(fake.seen).toEqual(['GET /v1/whoami']);
  });
});
