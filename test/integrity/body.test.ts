import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIGNATURE_FORMATS,
  bodyWithoutSignature,
  mergeSignatureFormats,
  signText,
} from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';

const { signer } = makeSigner();

describe('bodyWithoutSignature()', () => {
  it('removes the signature line of a comment-signed item and normalises newlines', () => {
    const signed = signText('#!/bin/sh\r\necho hi\r\n', {
      itemType: 'tool',
      extension: '.sh',
      signer,
    });
    expect(bodyWithoutSignature(signed.text, 'tool', '.sh')).toBe('#!/bin/sh\necho hi\n');
    const doc = signText('# Title\n', { itemType: 'knowledge', extension: '.md', signer });
    expect(bodyWithoutSignature(doc.text, 'knowledge', '.md')).toBe('# Title\n');
  });

  it('keeps a malformed signature line out of the body too', () => {
    expect(bodyWithoutSignature('<!-- rye:signed:garbage -->\nbody\n', 'knowledge', '.md')).toBe(
      'body\n',
    );
  });

  it('returns unsigned, JSON and unsupported texts whole, newlines normalised', () => {
    expect(bodyWithoutSignature('a\r\nb', 'tool', '.py')).toBe('a\nb');
    const json = signText('{"a":1}', { itemType: 'tool', extension: '.json', signer }).text;
    expect(bodyWithoutSignature(json, 'tool', '.json')).toBe(json);
    expect(bodyWithoutSignature('x\ry', 'tool', '.exe')).toBe('x\ny');
  });

  it('reads the signature position from the table it is given', () => {
    const table = mergeSignatureFormats(DEFAULT_SIGNATURE_FORMATS, {
      tool: {
        extensions: { '.lua': { kind: 'comment', prefix: '--', suffix: '', placement: 'byte0' } },
      },
    });
    const signed = signText('print(1)\n', {
      itemType: 'tool',
      extension: '.lua',
      signer,
      formats: table,
    });
    expect(bodyWithoutSignature(signed.text, 'tool', '.lua', table)).toBe('print(1)\n');
  });
});
