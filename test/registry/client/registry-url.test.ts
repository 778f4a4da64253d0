import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import { parseRegistryUrl, resolveRegistryUrl } from '../../../src/registry/index.js';

describe('parseRegistryUrl()', () => {
  it.each([
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080', '127.0.0.1:8080'],
    ['HTTP://Registry.Example.COM/', 'http://registry.example.com', 'registry.example.com:80'],
    ['https://r.example:443', 'https://r.example', 'r.example:443'],
    ['https://r.example:8443/', 'https://r.example:8443', 'r.example:8443'],
    ['http://[::1]:9000', 'http://[::1]:9000', '[::1]:9000'],
  ])('normalizes %s', (input, url, identity) => {
    expect(parseRegistryUrl(input)).toEqual({ url, identity });
  });

  it.each([
    'ftp://r.example',
    'r.example:8080',
    'http://user:pw@r.example',
    'http://r.example/api',
    'http://r.example/?x=1',
    'http://r.example/#top',
    'file:///etc/passwd',
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
