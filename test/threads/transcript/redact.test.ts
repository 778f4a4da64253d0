import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED_TOKEN, redactJson, redactTokens } from '../../../src/threads/transcript/index.js';

describe('redactTokens()', () => {
  it('replaces every capability token, and is idempotent', () => {
    const text = 'a rye-cap-v1.eyJ0_-Q and rye-cap-v1.b2 end';
    expect(redactTokens(text)).toBe(`a ${REDACTED_TOKEN} and ${REDACTED_TOKEN} end`);
    expect(redactTokens(redactTokens(text))).toBe(redactTokens(text));
  });

  it('keeps any JSON valid and leaves no token in any string or key', () => {
    const token = fc.stringMatching(/^rye-cap-v1\.[A-Za-z0-9_-]{1,30}$/);
    const text = fc.tuple(fc.string(), token, fc.string()).map(([a, t, b]) => `${a}${t}${b}`);
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(text, fc.array(text))), (value) => {
        const json = redactJson(JSON.stringify(value));
        const back = JSON.parse(json) as unknown;
        expect(JSON.stringify(back)).not.toMatch(/rye-cap-v1\.[A-Za-z0-9_-]/);
      }),
    );
  });
});
