import { describe, expect, it } from 'vitest';
import { computeContentHash, sha256Hex, signText, verifyText } from '../../src/integrity/index.js';
import { directiveSpan, signedTextFor } from '../../src/integrity/hashed-content.js';
import { makeSigner } from '../helpers/keys.js';

const { signer, trust } = makeSigner();

describe('computeContentHash()', () => {
  it('is the hash a fresh signature carries, signed or not, for comment and JSON tools', () => {
    for (const [text, extension] of [
      ['#!/bin/sh\necho hi\n', '.sh'],
      ['{"b":1,"a":[1.0]}', '.json'],
    ] as const) {
      const before = computeContentHash(text, 'tool', extension);
      const after = signText(text, { itemType: 'tool', extension, signer });
      expect(after.fields.contentHash).toBe(before);
      expect(computeContentHash(after.text, 'tool', extension)).toBe(before);
    }
  });

  it('hashes a tool without its shebang line, and a directive or knowledge item whole', () => {
    expect(computeContentHash('#!/bin/sh\necho hi\r\n', 'tool', '.sh')).toBe(
      sha256Hex('echo hi\n'),
    );
    const doc = '#!not a shebang for knowledge\nbody\n';
    expect(computeContentHash(doc, 'knowledge', '.md')).toBe(sha256Hex(doc));
    const signedDoc = signText(doc, { itemType: 'knowledge', extension: '.md', signer });
    expect(computeContentHash(signedDoc.text, 'knowledge', '.md')).toBe(sha256Hex(doc));
    expect(verifyText(signedDoc.text, { itemType: 'knowledge', extension: '.md', trust }).ok).toBe(
      true,
    );
  });

  it('is null for an unsupported extension and for JSON that does not parse', () => {
    expect(computeContentHash('x', 'tool', '.exe')).toBeNull();
    expect(computeContentHash('{"a":1,"a":2}', 'tool', '.json')).toBeNull();
    expect(computeContentHash('{', 'tool', '.json')).toBeNull();
  });
});

describe('hashed content', () => {
  it('toolHashedText() drops a shebang line; a shebang alone is kept, as it was hashed', () => {
    expect(signedTextFor('tool', '#!/bin/sh\necho\n')).toBe('echo\n');
    expect(signedTextFor('tool', '#!/bin/sh')).toBe('#!/bin/sh');
    expect(signedTextFor('directive', '#!/bin/sh\necho\n')).toBe('#!/bin/sh\necho\n');
  });

  it('directiveSpan() is the first start tag to the last end tag, else undefined', () => {
    const text = 'pre <directive name="a">x</directive> mid </directive> post';
    expect(directiveSpan(text)).toBe('<directive name="a">x</directive> mid </directive>');
    expect(directiveSpan('no tags')).toBeUndefined();
    expect(directiveSpan('<directive name="a"> never closed')).toBeUndefined();
    expect(directiveSpan('</directive> before <directive>')).toBeUndefined();
  });
});
