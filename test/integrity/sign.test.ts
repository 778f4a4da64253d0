import { describe, expect, it } from 'vitest';
import {
  computeContentHash,
  resealText,
  signText,
  verifyText,
  type SignatureFields,
} from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';

const { signer, trust } = makeSigner();
const NOW = new Date(Date.UTC(2026, 1, 11));

describe('signText() edge cases', () => {
  it('gives a shebang without a newline one, so the hashed text is what will be verified', () => {
    const signed = signText('#!/bin/sh', { itemType: 'tool', extension: '.sh', signer });
    expect(signed.text).toMatch(/^#!\/bin\/sh\n# rye:signed:[^\n]+\n$/);
    expect(verifyText(signed.text, { itemType: 'tool', extension: '.sh', trust }).verdict).toBe(
      'ok',
    );
  });

  it('replaces a malformed signature line that ends the file', () => {
    const signed = signText('# rye:signed:garbage', { itemType: 'tool', extension: '.py', signer });
    expect(signed.removedSignatures).toBe(1);
    expect(signed.text).toMatch(/^# rye:signed:\S+\n$/);
    expect(verifyText(signed.text, { itemType: 'tool', extension: '.py', trust }).ok).toBe(true);
  });

  it('keeps the CRLF line endings of a JSON tool', () => {
    const text = '{\r\n  "a": 1\r\n}\r\n';
    const signed = signText(text, { itemType: 'tool', extension: '.json', signer });
    expect(signed.text).toContain('\r\n');
    expect(signed.text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(verifyText(signed.text, { itemType: 'tool', extension: '.json', trust }).ok).toBe(true);
  });

  it('refuses an extension without a format, naming the path when given', () => {
    expect(() => signText('x', { itemType: 'tool', extension: '.exe', signer })).toThrow(
      expect.objectContaining({
        code: 'ITEM_UNSUPPORTED_EXTENSION',
        message: 'Cannot sign tool text: no tool format for ".exe" files',
        details: { path: null, extension: '.exe' },
      }),
    );
    expect(() =>
      signText('x', { itemType: 'tool', extension: '.exe', signer, path: 't/x.exe' }),
    ).toThrow(expect.objectContaining({ details: { path: 't/x.exe', extension: '.exe' } }));
  });
});

describe('resealText()', () => {
  const original = signText('print(1)\n', {
    itemType: 'tool',
    extension: '.py',
    signer,
    now: NOW,
  });

  it('puts the author signature back on content another key signed since', () => {
    const other = makeSigner('registry');
    const resigned = signText(original.text, {
      itemType: 'tool',
      extension: '.py',
      signer: other.signer,
      provenance: 'rye-registry@ada',
    });
    const restored = resealText(resigned.text, {
      itemType: 'tool',
      extension: '.py',
      fields: original.fields,
    });
    expect(restored.text).toBe(original.text);
    expect(restored.removedSignatures).toBe(1);
    expect(verifyText(restored.text, { itemType: 'tool', extension: '.py', trust }).ok).toBe(true);
  });

  it('refuses a signature over other content, with the two hashes as evidence', () => {
    const edited = 'print(2)\n';
    const fields: SignatureFields = original.fields;
    const actual = computeContentHash(edited, 'tool', '.py');
    expect(() => resealText(edited, { itemType: 'tool', extension: '.py', fields })).toThrow(
      expect.objectContaining({
        code: 'INTEGRITY_HASH_MISMATCH',
        message: 'Cannot reseal tool text: the signature covers other content',
        details: { path: null, expected: fields.contentHash, actual },
      }),
    );
    expect(() =>
      resealText(edited, { itemType: 'tool', extension: '.py', fields, path: 'tools/x.py' }),
    ).toThrow(
      expect.objectContaining({
        message: 'Cannot reseal tools/x.py: the signature covers other content',
        details: { path: 'tools/x.py', expected: fields.contentHash, actual },
      }),
    );
  });
});
