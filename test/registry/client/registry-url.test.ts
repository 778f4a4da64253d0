import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import { parseRegistryUrl, resolveRegistryUrl } from '../../../src/registry/index.js';

describe('parseRegistryUrl()', () => {
  // Issue 11: the canonical origin writes the default port, so
  // `https://r.example` and `https://r.example:443` are one pin, one token.
  it.each([
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080', '127.0.0.1:8080', 'loopback'],
    [
      'HTTP://Registry.Example.COM/',
      'http://registry.example.com:80',
      'registry.example.com:80',
      'insecure',
    ],
    ['https://r.example:443', 'https://r.example:443', 'r.example:443', 'https'],
    ['https://r.example', 'https://r.example:443', 'r.example:443', 'https'],
    ['https://r.example.:443/', 'https://r.example:443', 'r.example:443', 'https'],
    ['https://r.example:8443/', 'https://r.example:8443', 'r.example:8443', 'https'],
    ['http://[::1]:9000', 'http://[::1]:9000', '[::1]:9000', 'loopback'],
    ['http://[0:0:0:0:0:0:0:1]', 'http://[::1]:80', '[::1]:80', 'loopback'],
    ['http://LOCALHOST.:7', 'http://localhost:7', 'localhost:7', 'loopback'],
    ['http://127.9.8.7:1', 'http://127.9.8.7:1', '127.9.8.7:1', 'loopback'],
    ['http://0x7f.1:1', 'http://127.0.0.1:1', '127.0.0.1:1', 'loopback'],
    ['http://128.0.0.1:1', 'http://128.0.0.1:1', '128.0.0.1:1', 'insecure'],
    ['http://app.localhost:1', 'http://app.localhost:1', 'app.localhost:1', 'insecure'],
    ['http://[::ffff:127.0.0.1]:1', 'http://[::ffff:7f00:1]:1', '[::ffff:7f00:1]:1', 'insecure'],
    ['http://127.0.0.1.example:1', 'http://127.0.0.1.example:1', '127.0.0.1.example:1', 'insecure'],
  ])('normalizes %s', (input, url, identity, transport) => {
    expect(parseRegistryUrl(input)).toEqual({ url, identity, transport });
  });

  it('keeps localhost and 127.0.0.1 apart: two origins, two pins', () => {
    expect(parseRegistryUrl('http://localhost:8080').url).not.toBe(
      parseRegistryUrl('http://127.0.0.1:8080').url,
    );
  });

  it.each([
    'ftp://r.example',
    'r.example:8080',
    'http://user:pw@r.example',
    'http://r.example/api',
    'http://r.example/?x=1',
    'http://r.example/#top',
    'file:///etc/passwd',
    'http://./',
    '',
  ])('refuses %j with REGISTRY_URL_INVALID', (input) => {
    try {
      parseRegistryUrl(input);
      throw new Error('accepted');
    } catch (error) {
      expect(isRyeError(error, 'REGISTRY_URL_INVALID')).toBe(true);
    }
  });
});

describe('resolveRegistryUrl()', () => {
  it('takes --registry, then RYE_REGISTRY_URL, then the default', () => {
    const env = { RYE_REGISTRY_URL: 'http://env.example:1' };
    expect(resolveRegistryUrl('http://flag.example:2', env).url).toBe('http://flag.example:2');
    expect(resolveRegistryUrl(undefined, env).url).toBe('http://env.example:1');
    expect(resolveRegistryUrl(undefined, {}).url).toBe('http://127.0.0.1:8080');
  });
});
