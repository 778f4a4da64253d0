import { describe, expect, it } from 'vitest';
import { checkHttpRequest, httpGuardFor, isLoopbackHost } from '../../src/mcp/http-guard.js';

const TOKEN = 'rye_' + 'k'.repeat(43);
const guard = httpGuardFor('127.0.0.1', 8123, TOKEN);
const ok = { host: '127.0.0.1:8123', origin: undefined, authorization: `Bearer ${TOKEN}` };

describe('checkHttpRequest()', () => {
  it('lets through a loopback Host with the bearer token, with or without a same-host Origin', () => {
    expect(checkHttpRequest(ok, guard)).toBeUndefined();
    for (const host of ['localhost:8123', '[::1]:8123', 'LOCALHOST:8123'])
      expect(checkHttpRequest({ ...ok, host }, guard)).toBeUndefined();
    expect(checkHttpRequest({ ...ok, origin: 'http://localhost:8123' }, guard)).toBeUndefined();
  });

  it('refuses a foreign or missing Host and a foreign Origin with 403 (DNS rebinding)', () => {
    for (const host of ['evil.example:8123', '127.0.0.1:9999', '127.0.0.1', undefined]) {
      const refusal = checkHttpRequest({ ...ok, host }, guard);
      expect(refusal?.status).toBe(403);
      expect(refusal?.error.code).toBe('MCP_HTTP_HOST_REFUSED');
      expect(refusal?.error.details['header']).toBe('Host');
    }
    for (const origin of ['http://evil.example:8123', 'https://127.0.0.1:8123', 'null', 'x']) {
      const refusal = checkHttpRequest({ ...ok, origin }, guard);
      expect(refusal?.error).toMatchObject({
        code: 'MCP_HTTP_HOST_REFUSED',
        details: { header: 'Origin' },
      });
    }
  });

  it('refuses a missing, malformed or wrong bearer token with 401', () => {
    for (const authorization of [
      undefined,
      '',
      TOKEN,
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN}x`,
      'Bearer ',
    ]) {
      const refusal = checkHttpRequest({ ...ok, authorization }, guard);
      expect(refusal?.status).toBe(401);
      expect(refusal?.error.code).toBe('MCP_HTTP_UNAUTHORIZED');
      expect(refusal?.error.message).not.toContain(TOKEN);
    }
    expect(checkHttpRequest({ ...ok, authorization: `bearer ${TOKEN}` }, guard)).toBeUndefined();
  });
});

describe('httpGuardFor() and isLoopbackHost()', () => {
  it('accepts the bound address too, bare names on port 80, never a wildcard', () => {
    expect(httpGuardFor('192.0.2.7', 80, TOKEN).hosts).toContain('192.0.2.7');
    expect(httpGuardFor('::1', 9000, TOKEN).hosts).toContain('[::1]:9000');
    expect([...httpGuardFor('0.0.0.0', 9000, TOKEN).hosts]).not.toContain('0.0.0.0:9000');
  });

  it('knows loopback from the rest', () => {
    for (const h of ['127.0.0.1', '127.9.9.9', '::1', '[::1]', 'localhost'])
      expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.2', 'example.com', '127.0.0.1.evil.com'])
      expect(isLoopbackHost(h)).toBe(false);
  });
});
