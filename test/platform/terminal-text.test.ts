import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  escapeControl,
  escapeControlInJson,
  escapeControlLines,
  hasControl,
} from '../../src/platform/index.js';

/**
 * What a terminal acts on or hides, written out here independently of the
 * implementation's character classes: C0 and DEL, C1, soft hyphen, Arabic
 * letter mark, zero-width and directional marks, line/paragraph separators,
 * bidi embeddings/overrides/isolates, word joiner and invisible operators,
 * BOM, interlinear annotation, and Unicode tags.
 */
const RAW =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Any code point, any lone UTF-16 unit, and the usual suspects, often. */
const anyUnit = fc.oneof(
  fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
  fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
  fc.constantFrom('\u001b', '\r', '\n', '\t', '\u009b', '\u202e', '\u2066', '\u200b', 'a', 'é'),
);

/** The inverse of escapeControl() for text that held no backslash. */
function unescape(text: string): string {
  const short: Record<string, string> = { t: '\t', n: '\n', r: '\r' };
  return text.replace(
    /\\(?:([tnr])|x([0-9a-f]{2})|u\{([0-9a-f]+)\}|u([0-9a-f]{4}))/g,
    (...m: (string | undefined)[]) => {
      const [, letter, byte, astral, unit] = m;
      if (letter !== undefined) return short[letter] ?? '';
      if (astral !== undefined) return String.fromCodePoint(parseInt(astral, 16));
      return String.fromCharCode(parseInt(byte ?? unit ?? '', 16));
    },
  );
}

describe('escapeControl()', () => {
  it('shows C0 controls, DEL and C1 controls as escapes', () => {
    expect(escapeControl('a\u001b[2Jb')).toBe('a\\x1b[2Jb');
    expect(escapeControl('x\ry\nz\tw')).toBe('x\\ry\\nz\\tw');
    expect(escapeControl('\u0000\u0007\u0008\u007f')).toBe('\\x00\\x07\\x08\\x7f');
    expect(escapeControl('\u0085\u009b31m\u009d')).toBe('\\x85\\x9b31m\\x9d');
  });

  it('shows bidi, zero-width and other invisible format characters', () => {
    expect(escapeControl('abc\u202etxt.exe')).toBe('abc\\u202etxt.exe');
    expect(escapeControl('\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069')).toBe(
      '\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069',
    );
    expect(escapeControl('o\u200bk\u200c\u200d\u200e\u200f')).toBe(
      'o\\u200bk\\u200c\\u200d\\u200e\\u200f',
    );
    expect(escapeControl('\ufeffa\u2028b\u2029c\u2060\u00ad\u061c')).toBe(
      '\\ufeffa\\u2028b\\u2029c\\u2060\\xad\\u061c',
    );
  });

  it('shows Unicode tag characters and lone surrogates by code point', () => {
    expect(escapeControl('hi\u{e0041}\u{e007f}')).toBe('hi\\u{e0041}\\u{e007f}');
    expect(escapeControl('a\ud800b\udc00')).toBe('a\\ud800b\\udc00');
  });

  it('changes nothing else: letters, emoji, spaces, quotes and backslashes stay', () => {
    const text = 'Zoë 中文 😀 a\u00a0b "q" \'s\' C:\\path\\x1b → ok';
    expect(escapeControl(text)).toBe(text);
    expect(escapeControl('')).toBe('');
  });

  it('leaves no raw character a terminal acts on and changes nothing else', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyUnit }), (text) => {
        const out = escapeControl(text);
        expect(RAW.test(out)).toBe(false);
        expect(hasControl(out)).toBe(false);
        if (!text.includes('\\')) expect(unescape(out)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});

describe('escapeControlLines()', () => {
  it('keeps each LF as a line break and escapes the rest of every line', () => {
    expect(escapeControlLines('one\u001b[1A\ntwo\r\nthree\u202e\n')).toBe(
      'one\\x1b[1A\ntwo\\r\nthree\\u202e\n',
    );
    expect(escapeControlLines('plain\ntext\n')).toBe('plain\ntext\n');
  });
});

describe('escapeControlInJson()', () => {
  it('writes DEL, C1, bidi, separators and tags as \\u escapes inside strings', () => {
    const json = JSON.stringify({ owner: 'a\u007f\u009b\u202e\u2028\u{e0041}' }, null, 2);
    const out = escapeControlInJson(json);
    expect(out).toBe('{\n  "owner": "a\\u007f\\u009b\\u202e\\u2028\\udb40\\udc41"\n}');
    expect(JSON.parse(out)).toEqual(JSON.parse(json));
  });

  it('keeps JSON whitespace, turning only a lone CR into an LF', () => {
    expect(escapeControlInJson('{\r\n\t"a": 1\r}')).toBe('{\r\n\t"a": 1\n}');
  });

  it('any JSON document keeps its value and loses every raw control but layout', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: anyUnit }), (value, text) => {
        for (const doc of [value, { text, value }]) {
          const json = JSON.stringify(doc, null, 2);
          const out = escapeControlInJson(json);
          expect(JSON.parse(out)).toEqual(JSON.parse(json));
          expect(RAW.test(out.replaceAll('\n', ''))).toBe(false);
        }
      }),
    );
  });
});

describe('the printable-ASCII shortcut', () => {
  it('no printable ASCII character is one the escapes rewrite, so such text is returned as it is', () => {
    for (let c = 0x20; c <= 0x7e; c++) expect(RAW.test(String.fromCharCode(c))).toBe(false);
    // Mostly ASCII with its controls, CR and LF: the text the shortcut sees first.
    const ascii = fc.string({
      unit: fc.oneof(
        fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
        fc.constantFrom('\n', '\t', '\r', '\u009b', 'é'),
      ),
    });
    fc.assert(
      fc.property(ascii, (text) => {
        const out = escapeControl(text);
        expect(RAW.test(out)).toBe(false);
        expect(hasControl(text)).toBe(RAW.test(text));
        expect(out === text).toBe(!RAW.test(text));
        expect(RAW.test(escapeControlLines(text).replaceAll('\n', ''))).toBe(false);
        const json = JSON.stringify({ text }, null, 2);
        expect(JSON.parse(escapeControlInJson(json))).toEqual({ text });
        expect(RAW.test(escapeControlInJson(json).replaceAll('\n', ''))).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('escapeControl() and the tag block', () => {
  it('escapes unassigned tag-block code points too (U+E0002 is not \\p{Cf} but renders as nothing)', () => {
    expect(escapeControl('a\u{e0002}b')).toBe('a\\u{e0002}b');
    expect(hasControl('\u{e007f}')).toBe(true);
  });
});
