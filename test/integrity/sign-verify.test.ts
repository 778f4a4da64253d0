import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIGNATURE_FORMATS,
  ITEM_TYPES,
  signText,
  trustSetOf,
  verifyText,
  type ItemType,
} from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';

const { signer, trust } = makeSigner();

/** Every (item type, extension) the default table knows, JSON excluded (own tests). */
const COMMENT_PAIRS: [ItemType, string][] = [
  ...ITEM_TYPES.filter((t) => t !== 'tool').flatMap((t): [ItemType, string][] => [
    [t, '.md'],
    [t, '.yaml'],
  ]),
  ...Object.entries(DEFAULT_SIGNATURE_FORMATS.tool.extensions)
    .filter(([, f]) => f.kind === 'comment')
    .map(([ext]): [ItemType, string] => ['tool', ext]),
];

const textArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc
    .array(fc.string({ unit: 'grapheme-ascii', maxLength: 40 }), { maxLength: 12 })
    .map((lines) => lines.join('\n')),
  fc.string({ maxLength: 80 }).map((s) => `#!/usr/bin/env tool\n${s}`),
);

const sign = (text: string, itemType: ItemType, extension: string): string =>
  signText(text, { itemType, extension, signer }).text;

describe('sign → verify', () => {
  for (const [itemType, extension] of COMMENT_PAIRS) {
    it(`verifies any signed ${itemType} text with extension ${extension}`, () => {
      fc.assert(
        fc.property(textArb, (text) => {
          const result = verifyText(sign(text, itemType, extension), {
            itemType,
            extension,
            trust,
          });
          expect(result.verdict, result.message).toBe('ok');
          if (itemType === 'directive') expect(result.coverage).toBe('full');
        }),
        { numRuns: 60 },
      );
    });

    it(`still verifies a signed ${itemType}${extension} after converting LF ↔ CRLF`, () => {
      fc.assert(
        fc.property(textArb, (text) => {
          const signed = sign(text, itemType, extension);
          const crlf = signed.replace(/\r?\n/g, '\r\n');
          expect(verifyText(crlf, { itemType, extension, trust }).verdict).toBe('ok');
          expect(
            verifyText(crlf.replace(/\r\n/g, '\n'), { itemType, extension, trust }).verdict,
          ).toBe('ok');
        }),
        { numRuns: 40 },
      );
    });

    it(`gives hash_mismatch for a ${itemType}${extension} with any hashed byte changed`, () => {
      const asciiText = fc
        .array(
          fc.string({
            unit: fc.constantFrom(...'abcdefgh XYZ=(){}:"'.split('')),
            minLength: 1,
            maxLength: 30,
          }),
          {
            minLength: 1,
            maxLength: 8,
          },
        )
        .map((lines) => lines.join('\n') + '\n');
      fc.assert(
        fc.property(
          asciiText,
          fc.nat(),
          fc.constantFrom(...'!#%&*+-.0123456789;<>?@_~'.split('')),
          (text, pick, replacement) => {
            const signed = sign(text, itemType, extension);
            const lineEnd = signed.indexOf('\n') + 1;
            const position = lineEnd + (pick % (signed.length - lineEnd));
            if (signed[position] === replacement) return;
            const tampered = signed.slice(0, position) + replacement + signed.slice(position + 1);
            const result = verifyText(tampered, { itemType, extension, trust });
            expect(result.verdict, result.message).toBe('hash_mismatch');
            expect(result.code).toBe('INTEGRITY_HASH_MISMATCH');
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it('signing twice replaces the line: exactly one signature, still ok', () => {
    const once = sign('print(1)\n', 'tool', '.py');
    const twice = sign(once, 'tool', '.py');
    expect(twice.match(/rye:signed:/g)).toHaveLength(1);
    expect(verifyText(twice, { itemType: 'tool', extension: '.py', trust }).verdict).toBe('ok');
  });

  it('puts the # line after a shebang and the // line before one', () => {
    const py = sign('#!/usr/bin/env python3\nprint(1)\n', 'tool', '.py').split('\n');
    expect(py[0]).toBe('#!/usr/bin/env python3');
    expect(py[1]).toMatch(/^# rye:signed:/);
    const ts = sign('#!/usr/bin/env node\nconsole.log(1)\n', 'tool', '.ts').split('\n');
    expect(ts[0]).toMatch(/^\/\/ rye:signed:/);
    expect(ts[1]).toBe('#!/usr/bin/env node');
  });

  it('keeps CRLF line endings of a CRLF file', () => {
    const signed = sign('a\r\nb\r\n', 'knowledge', '.md');
    expect(signed).toMatch(/^<!-- rye:signed:[^\r\n]+ -->\r\na\r\nb\r\n$/);
  });

  it('emits the signature base64url with = padding', () => {
    const signed = signText('x\n', { itemType: 'tool', extension: '.py', signer });
    expect(signed.fields.signature).toMatch(/^[A-Za-z0-9_-]{86}==$/);
  });

  it('keeps an unsigned registry provenance suffix out of the signature', () => {
    const signed = signText('x\n', {
      itemType: 'tool',
      extension: '.py',
      signer,
      provenance: 'rye-registry@alice',
    });
    const result = verifyText(signed.text, { itemType: 'tool', extension: '.py', trust });
    expect(result.verdict).toBe('ok');
    expect(result.provenance).toBe('rye-registry@alice');
    const stripped = signed.text.replace('|rye-registry@alice', '');
    expect(verifyText(stripped, { itemType: 'tool', extension: '.py', trust }).verdict).toBe('ok');
  });

  it('reports untrusted_key for a valid signature by a key outside the trust set', () => {
    const other = makeSigner();
    const signed = signText('x\n', {
      itemType: 'tool',
      extension: '.py',
      signer: other.signer,
    }).text;
    const result = verifyText(signed, { itemType: 'tool', extension: '.py', trust });
    expect(result.verdict).toBe('untrusted_key');
    expect(result.code).toBe('INTEGRITY_UNTRUSTED_KEY');
    expect(
      verifyText(signed, { itemType: 'tool', extension: '.py', trust: trustSetOf([]) }).verdict,
    ).toBe('untrusted_key');
  });

  it('reports bad_signature when a trusted key did not make the signature', () => {
    const other = makeSigner();
    const forged = signText('x\n', {
      itemType: 'tool',
      extension: '.py',
      signer: { ...other.signer, fingerprint: signer.fingerprint },
    }).text;
    const result = verifyText(forged, { itemType: 'tool', extension: '.py', trust });
    expect(result.verdict).toBe('bad_signature');
    expect(result.code).toBe('INTEGRITY_BAD_SIGNATURE');
  });
});

describe('signed JSON tools', () => {
  const jsonValue = fc.dictionary(
    fc.string({ maxLength: 8 }).filter((k) => k !== '_signature'),
    fc.jsonValue({ maxDepth: 3 }),
    { maxKeys: 6 },
  );

  it('verifies any signed JSON object and keeps one _signature field', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const signed = sign(JSON.stringify(value), 'tool', '.json');
        expect(signed.startsWith(`{\n  "_signature": "rye:signed:`)).toBe(true);
        expect(verifyText(signed, { itemType: 'tool', extension: '.json', trust }).verdict).toBe(
          'ok',
        );
        expect(
          verifyText(JSON.stringify(JSON.parse(signed)), {
            itemType: 'tool',
            extension: '.json',
            trust,
          }).verdict,
        ).toBe('ok');
      }),
      { numRuns: 80 },
    );
  });

  it('gives hash_mismatch when a value changes and unsigned when the field is gone', () => {
    const signed = JSON.parse(sign('{"a": 1, "b": [true, null]}', 'tool', '.json')) as Record<
      string,
      unknown
    >;
    const edited = JSON.stringify({ ...signed, a: 2 });
    expect(verifyText(edited, { itemType: 'tool', extension: '.json', trust }).verdict).toBe(
      'hash_mismatch',
    );
    const { _signature: _dropped, ...rest } = signed;
    expect(
      verifyText(JSON.stringify(rest), { itemType: 'tool', extension: '.json', trust }).code,
    ).toBe('INTEGRITY_UNSIGNED');
  });
});
