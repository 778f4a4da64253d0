import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIGNATURE_FORMATS,
  mergeSignatureFormats,
  signatureFormatFor,
  type SignatureFormat,
} from '../../src/integrity/index.js';

const LUA: SignatureFormat = { kind: 'comment', prefix: '--', suffix: '', placement: 'byte0' };
const HTML: SignatureFormat = {
  kind: 'comment',
  prefix: '<!--',
  suffix: '-->',
  placement: 'byte0',
};

describe('signature formats', () => {
  it('signatureFormatFor() matches the extension case-insensitively, else the fallback', () => {
    expect(signatureFormatFor('tool', '.PY')).toMatchObject({ prefix: '#' });
    expect(signatureFormatFor('tool', '.lua')).toBeUndefined();
    expect(signatureFormatFor('knowledge', '.anything')).toEqual(HTML);
  });

  it('mergeSignatureFormats() adds rows and a fallback, keeping the base rows and fallbacks', () => {
    const merged = mergeSignatureFormats(DEFAULT_SIGNATURE_FORMATS, {
      tool: { extensions: { '.lua': LUA }, fallback: LUA },
      knowledge: { extensions: { '.txt': LUA } },
    });
    expect(signatureFormatFor('tool', '.lua', merged)).toEqual(LUA);
    expect(signatureFormatFor('tool', '.unknown', merged)).toEqual(LUA);
    expect(signatureFormatFor('tool', '.py', merged)).toMatchObject({ prefix: '#' });
    expect(signatureFormatFor('knowledge', '.txt', merged)).toEqual(LUA);
    expect(signatureFormatFor('knowledge', '.md', merged)).toEqual(HTML);
    // No fallback given and none in the base: tools still have none.
    const plain = mergeSignatureFormats(DEFAULT_SIGNATURE_FORMATS, {});
    expect(plain.tool).not.toHaveProperty('fallback');
    expect(signatureFormatFor('tool', '.lua', plain)).toBeUndefined();
    expect(plain).toEqual(DEFAULT_SIGNATURE_FORMATS);
  });
});
