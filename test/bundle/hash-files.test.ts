import { describe, expect, it } from 'vitest';
import { hasInlineSignature } from '../../src/bundle/index.js';
import { signText } from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';

const PY = '.ai/tools/apps/a/run.py';
const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('hasInlineSignature()', () => {
  const { signer } = makeSigner();
  const signed = signText('print(1)\n', { itemType: 'tool', extension: '.py', signer }).text;
  const line = signed.slice(0, signed.indexOf('\n') + 1);

  it('is true for a signature line where the format puts it, also after a shebang', () => {
    expect(hasInlineSignature(PY, bytes(signed))).toBe(true);
    expect(hasInlineSignature(PY, bytes(`#!/usr/bin/env python3\n${line}print(1)\n`))).toBe(true);
    expect(hasInlineSignature(PY, bytes(signed.replace(/\n/g, '\r\n')))).toBe(true);
  });

  it('is true for a malformed signature line: it still claims to be signed', () => {
    expect(hasInlineSignature(PY, bytes('# rye:signed:garbage\nprint(1)\n'))).toBe(true);
  });

  it('is false without a line in place: unsigned, misplaced, a lone shebang, not an item', () => {
    expect(hasInlineSignature(PY, bytes('print(1)\n'))).toBe(false);
    expect(hasInlineSignature(PY, bytes(`print(1)\n${line}`))).toBe(false);
    expect(hasInlineSignature(PY, bytes('#!/usr/bin/env python3'))).toBe(false);
    expect(hasInlineSignature('webapp/run.py', bytes(signed))).toBe(false);
    expect(hasInlineSignature(PY, Buffer.from([0xff, 0xfe, 0]))).toBe(false);
  });
});
