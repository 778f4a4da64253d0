import * as yaml from 'yaml';
import { LineCounter, parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import { parseYamlDocumentCapped } from '../../../src/items/metadata/yaml-document.js';

const CAPS = { maxLexemes: 1_000, maxDepth: 8 };
const OPTIONS = { schema: 'core', uniqueKeys: false, prettyErrors: false } as const;

function refused(text: string): { message: string; details: Record<string, unknown> } {
  try {
    parseYamlDocumentCapped(yaml, text, 'doc.yaml', CAPS, OPTIONS);
  } catch (error) {
    expect(isRyeError(error, 'PARSE_UNSAFE_CONTENT'), String(error)).toBe(true);
    return error as { message: string; details: Record<string, unknown> };
  }
  throw new Error('expected PARSE_UNSAFE_CONTENT');
}

describe('parseYamlDocumentCapped()', () => {
  it.each([
    'a: 1\nb: [x, {c: d}]\n',
    'a: 1\n---\nb: 2\n',
    'a: [1, 2\n',
    '',
    '%YAML 1.2\n---\n- &a x\n- *a\n',
  ])('composes %j exactly as parseDocument does', (text) => {
    const ours = parseYamlDocumentCapped(yaml, text, 'doc.yaml', CAPS, OPTIONS);
    const theirs = parseDocument(text, OPTIONS);
    expect(ours.toJS()).toEqual(theirs.toJS());
    expect(ours.errors.map((e) => [e.code, e.pos])).toEqual(
      theirs.errors.map((e) => [e.code, e.pos]),
    );
  });

  it('feeds the line counter as parseDocument does', () => {
    const ours = new LineCounter();
    const theirs = new LineCounter();
    const text = 'a: 1\nb:\n  - 2\n';
    parseYamlDocumentCapped(yaml, text, 'doc.yaml', CAPS, { ...OPTIONS, lineCounter: ours });
    parseDocument(text, { ...OPTIONS, lineCounter: theirs });
    expect(ours.lineStarts).toEqual(theirs.lineStarts);
  });

  it('refuses more lexemes than the cap, naming the line it stopped on', () => {
    const text = Array.from({ length: 400 }, (_, i) => `k${i}: ${i}\n`).join('');
    const error = refused(text);
    expect(error.message).toMatch(
      /^Cannot parse YAML in doc\.yaml: more than 1000 YAML tokens \(line \d+\)$/,
    );
    expect(error.details).toMatchObject({
      source: 'doc.yaml',
      reason: 'more than 1000 YAML tokens',
    });
  });

  it('refuses nesting past the cap while tokenising, before the composer recurses', () => {
    expect(refused('[[[[[[[[[[1]]]]]]]]]]').details['reason']).toBe(
      'collections nested deeper than 8 levels',
    );
    expect(
      refused('a:\n b:\n  c:\n   d:\n    e:\n     f:\n      g:\n       h:\n        i: 1\n').details[
        'line'
      ],
    ).toBe(8);
    expect(
      parseYamlDocumentCapped(yaml, '[[[[[[1]]]]]]', 'doc.yaml', CAPS, OPTIONS).toJS(),
    ).toEqual([[[[[[1]]]]]]);
  });
});
