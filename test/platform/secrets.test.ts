import { describe, expect, it } from 'vitest';
import {
  REDACTED_SECRET,
  REDACTED_TOKEN,
  redactSecrets,
  rememberEnvSecrets,
  rememberSecret,
} from '../../src/platform/index.js';

describe('redactSecrets()', () => {
  it('replaces tokens and key shapes by pattern, remembered secrets by value, and stays valid JSON', () => {
    rememberEnvSecrets({
      MY_API_KEY: 'hunter2-very-secret',
      HOME: '/home/me',
      SHORT_API_KEY: 'abc',
    });
    rememberSecret('q"uoted\\secret-value');
    const doc = {
      token: 'rye-cap-v1.AbC_d-9',
      anthropic: `key sk-ant-${'a'.repeat(30)} here`,
      echoed: 'invalid x-api-key: hunter2-very-secret',
      quoted: 'q"uoted\\secret-value',
      home: '/home/me',
      short: 'abc',
    };
    const text = redactSecrets(JSON.stringify(doc));
    const back = JSON.parse(text) as Record<string, string>;
    expect(back).toEqual({
      token: REDACTED_TOKEN,
      anthropic: `key ${REDACTED_SECRET} here`,
      echoed: `invalid x-api-key: ${REDACTED_SECRET}`,
      quoted: REDACTED_SECRET,
      // Not secret variables, or too short to redact by value.
      home: '/home/me',
      short: 'abc',
    });
    expect(redactSecrets(text)).toBe(text);
  });
});
