import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIGNATURE_FORMATS,
  ITEM_TYPES,
  signText,
  type ItemType,
} from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';

const { signer } = makeSigner();
const EARLY = new Date('2026-01-01T00:00:00Z');
const LATE = new Date('2026-06-01T12:00:00Z');

const PAIRS: [ItemType, string][] = [
  ...ITEM_TYPES.filter((t) => t !== 'tool').flatMap((t): [ItemType, string][] => [
    [t, '.md'],
    [t, '.yaml'],
  ]),
  ...Object.keys(DEFAULT_SIGNATURE_FORMATS.tool.extensions).map((ext): [ItemType, string] => [
    'tool',
    ext,
  ]),
];

const textArb = fc.oneof(
  fc
    .array(fc.string({ unit: 'grapheme-ascii', maxLength: 40 }), { maxLength: 12 })
    .map((lines) => lines.join('\n')),
  fc.string({ maxLength: 80 }).map((s) => `#!/usr/bin/env tool\n${s}`),
  fc
    .array(fc.string({ unit: 'grapheme-ascii', maxLength: 20 }), { maxLength: 5 })
    .map((lines) => lines.join('\r\n')),
);

function textFor(extension: string, body: string): string {
  return extension === '.json' ? JSON.stringify({ body }) : body;
}

describe('signText() is idempotent', () => {
  for (const [itemType, extension] of PAIRS) {
    it(`keeps a ${itemType} ${extension} signed by the same key byte for byte`, () => {
      fc.assert(
        fc.property(textArb, (body) => {
          const first = signText(textFor(extension, body), {
            itemType,
            extension,
            signer,
            now: EARLY,
          });
          const again = signText(first.text, { itemType, extension, signer, now: LATE });
          expect(again.unchanged).toBe(true);
          expect(again.text).toBe(first.text);
          expect(again.fields).toEqual(first.fields);
        }),
        { numRuns: 40 },
      );
    });
  }

  it('signs again (new timestamp) when the content changed', () => {
    const first = signText('x = 1\n', { itemType: 'tool', extension: '.py', signer, now: EARLY });
    const edited = signText(`${first.text}y = 2\n`, {
      itemType: 'tool',
      extension: '.py',
      signer,
      now: LATE,
    });
    expect(edited.unchanged).toBe(false);
    expect(edited.fields.timestamp).toBe('2026-06-01T12:00:00Z');
    expect(edited.fields.contentHash).not.toBe(first.fields.contentHash);
  });

  it('signs again with the new key when another key signed it', () => {
    const other = makeSigner().signer;
    const first = signText('x = 1\n', { itemType: 'tool', extension: '.py', signer, now: EARLY });
    const resigned = signText(first.text, {
      itemType: 'tool',
      extension: '.py',
      signer: other,
      now: LATE,
    });
    expect(resigned.unchanged).toBe(false);
    expect(resigned.fields.fingerprint).toBe(other.fingerprint);
    expect(resigned.fields.timestamp).toBe('2026-06-01T12:00:00Z');
  });

  it('does not keep a line whose signature is not the key’s own (forged or damaged)', () => {
    const first = signText('x = 1\n', { itemType: 'tool', extension: '.py', signer, now: EARLY });
    const sig = first.fields.signature;
    const damaged = first.text.replace(sig, `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
    const fixed = signText(damaged, { itemType: 'tool', extension: '.py', signer, now: LATE });
    expect(fixed.unchanged).toBe(false);
    expect(fixed.text).toBe(first.text.replace('2026-01-01T00:00:00Z', '2026-06-01T12:00:00Z'));
  });

  it('removes a stale extra signature line but keeps the timestamp of the valid one', () => {
    const first = signText('x = 1\n', { itemType: 'tool', extension: '.py', signer, now: EARLY });
    const stray = `${first.text}# ${first.text.split('\n')[0]?.slice(2) ?? ''}\n`;
    const cleaned = signText(stray, { itemType: 'tool', extension: '.py', signer, now: LATE });
    expect(cleaned.unchanged).toBe(false);
    expect(cleaned.text).toBe(first.text);
  });

  it('adds or drops a provenance suffix as asked (the line changes)', () => {
    const first = signText('x = 1\n', { itemType: 'tool', extension: '.py', signer, now: EARLY });
    const attested = signText(first.text, {
      itemType: 'tool',
      extension: '.py',
      signer,
      now: LATE,
      provenance: 'rye-registry@alice',
    });
    expect(attested.unchanged).toBe(false);
    expect(attested.fields.provenance).toBe('rye-registry@alice');
    expect(attested.fields.timestamp).toBe('2026-06-01T12:00:00Z');
  });
});
