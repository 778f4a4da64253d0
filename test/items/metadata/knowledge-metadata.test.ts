import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import type { ErrorCode } from '../../../src/errors/index.js';
import { extractKnowledgeMetadata } from '../../../src/items/metadata/knowledge-metadata.js';
import { requireVectors } from '../../helpers/vectors.js';

const SIGNATURE =
  '<!-- rye:signed:2026-02-24T05:50:18Z:575f1954970b639ed22cd5d1dde7389fd4c8a7f6546cd61602825b8a1febb481:3wzx:9fbfabe975fa5a7f -->';
const FRONT =
  'name: limits-and-safety\ntitle: Limits and Safety\nentry_type: reference\nversion: "1.0.0"';
const FIELDS = {
  name: 'limits-and-safety',
  title: 'Limits and Safety',
  entry_type: 'reference',
  version: '1.0.0',
};

function refusal(text: string, extension: string, code: ErrorCode): RyeError {
  try {
    extractKnowledgeMetadata(text, extension, 'entry');
  } catch (error) {
    if (!(error instanceof RyeError)) throw error;
    expect(error.code).toBe(code);
    expect(error.message).toMatch(/^Cannot /);
    return error;
  }
  throw new Error(`expected ${code}`);
}

describe('extractKnowledgeMetadata()', () => {
  it('reads a ```yaml fence after the signature line and a blank line', () => {
    const text = `${SIGNATURE}\n\n\`\`\`yaml\n${FRONT}\n\`\`\`\n\n# Limits\nBody.\n`;
    expect(extractKnowledgeMetadata(text, '.md', 'entry')).toEqual({
      kind: 'knowledge',
      fields: FIELDS,
    });
  });

  it('reads a fence straight after the signature line, and after a rye:unsigned marker', () => {
    const text = `${SIGNATURE}\n<!-- rye:unsigned -->\n\`\`\`yml\n${FRONT}\n\`\`\`\n# Body\n`;
    expect(extractKnowledgeMetadata(text, '.md', 'entry').fields).toEqual(FIELDS);
  });

  it('reads the older --- front matter block', () => {
    const text = `${SIGNATURE}\n---\n${FRONT}\ntags:\n  - a\n  - b\n---\n# Body\n`;
    expect(extractKnowledgeMetadata(text, 'md', 'entry').fields).toEqual({
      ...FIELDS,
      tags: ['a', 'b'],
    });
  });

  it('keeps every key, with timestamps left as strings', () => {
    const text = '```yaml\nname: n\ncreated_at: 2026-02-18T00:00:00Z\nreferences: [x]\n```\n';
    expect(extractKnowledgeMetadata(text, '.md', 'entry').fields).toEqual({
      name: 'n',
      created_at: '2026-02-18T00:00:00Z',
      references: ['x'],
    });
  });

  it('gives empty fields when the file has no leading front matter', () => {
    expect(extractKnowledgeMetadata('# Title\n\nProse.\n', '.md', 'entry').fields).toEqual({});
    const late = '# Title\n\n```yaml\nname: not-front-matter\n```\n';
    expect(extractKnowledgeMetadata(late, '.md', 'entry').fields).toEqual({});
    expect(extractKnowledgeMetadata('', '.md', 'entry').fields).toEqual({});
  });

  it('reads a whole .yaml or .yml file as the fields, after the signature line', () => {
    const text = `${SIGNATURE}\n${FRONT}\n`;
    expect(extractKnowledgeMetadata(text, '.yaml', 'entry').fields).toEqual(FIELDS);
    expect(extractKnowledgeMetadata(FRONT.replace(/\n/g, '\r\n'), '.YML', 'e').fields).toEqual(
      FIELDS,
    );
  });

  it('fails on a front matter block that never closes', () => {
    const error = refusal(`${SIGNATURE}\n\`\`\`yaml\n${FRONT}\n`, '.md', 'METADATA_PARSE_FAILED');
    expect(error.details['line']).toBe(2);
  });

  it('fails on front matter that is not a mapping', () => {
    refusal('```yaml\n- a\n- b\n```\n', '.md', 'METADATA_PARSE_FAILED');
    refusal('just a string\n', '.yaml', 'METADATA_PARSE_FAILED');
  });

  it('fails on a YAML syntax error', () => {
    refusal('```yaml\nname: [unclosed\n```\n', '.md', 'METADATA_PARSE_FAILED');
  });

  it('refuses a YAML alias bomb (billion laughs)', () => {
    const bomb = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
    ].join('\n');
    refusal(`\`\`\`yaml\n${bomb}\n\`\`\`\n`, '.md', 'PARSE_UNSAFE_CONTENT');
    refusal(bomb, '.yaml', 'PARSE_UNSAFE_CONTENT');
  });

  it('refuses an extension that is not a knowledge format', () => {
    refusal('name: x', '.txt', 'ITEM_UNSUPPORTED_EXTENSION');
  });

  it('reads every knowledge entry in the conformance vectors, named after its file', () => {
    const VECTORS = requireVectors();
    const files = readdirSync(VECTORS, { recursive: true, encoding: 'utf8' })
      .map((file) => file.split('\\').join('/'))
      .filter((file) => /\/files\/\.ai\/knowledge\/.+\.md$/.test(file));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = readFileSync(join(VECTORS, file), 'utf8');
      const { fields } = extractKnowledgeMetadata(text, '.md', file);
      expect(fields['version'], file).toMatch(/^\d+\.\d+\.\d+$/);
      if (file.startsWith('ryeos-')) expect(fields['name'], file).toBe(basename(file, '.md'));
    }
  });
});

describe('extractKnowledgeMetadata() on hostile 1 MB files', () => {
  const MB = 1024 * 1024;
  const keys = (count: number): string =>
    Array.from({ length: count }, (_, i) => `k${i}: ${i}`).join('\n');

  it('refuses 1 MB of front matter keys (once a quadratic duplicate-key check)', () => {
    const text = `\`\`\`yaml\n${keys(110_000)}\n\`\`\`\n`;
    expect(text.length).toBeGreaterThan(MB);
    refusal(text, '.md', 'PARSE_UNSAFE_CONTENT');
    refusal(keys(110_000), '.yaml', 'PARSE_UNSAFE_CONTENT');
  });

  it('reads small front matter above a 1 MB body', () => {
    const text = `${SIGNATURE}\n\`\`\`yaml\n${FRONT}\n\`\`\`\n${'Body <b>text</b> & more.\n'.repeat(MB / 24)}`;
    expect(extractKnowledgeMetadata(text, '.md', 'entry').fields).toEqual(FIELDS);
  });

  it('refuses a never-closed front matter block over 1 MB of lines', () => {
    refusal(`---\n${'a: b\n'.repeat(MB / 5)}`, '.md', 'METADATA_PARSE_FAILED');
  });
});
