import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../src/errors/index.js';
import { extractMetadata } from '../../src/items/index.js';
import { readSimpleKnowledgeMetadata } from '../../src/catalog/front-matter.js';

/** What the full reader gives: the fields as an ordered entry list, or its error code. */
async function full(text: string, extension = '.md'): Promise<unknown> {
  try {
    const meta = await extractMetadata('knowledge', extension, text, 'x.md');
    return meta.kind === 'knowledge' ? Object.entries(meta.fields) : meta.kind;
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return error.code;
  }
}

/** Asserts the simple reader, when it answers, answers as the full one; returns whether it did. */
async function agree(text: string, extension = '.md'): Promise<boolean> {
  const simple = readSimpleKnowledgeMetadata(text, extension);
  if (simple === undefined) return false;
  expect(Object.entries(simple.fields), JSON.stringify(text)).toEqual(await full(text, extension));
  return true;
}

const COMMON = `<!-- rye:signed:2026-01-01T00:00:00Z:${'a'.repeat(64)}:sig:fp -->
\`\`\`yaml
name: runtimes
title: Standard runtimes and primitives - how tools are run
entry_type: reference
version: "1.0.0"
category: rye/core
tags: [tools, runtimes, executor, python, node, shell, anchor]
\`\`\`

# Standard runtimes
`;

// Pieces chosen to sit on both sides of every rule of the simple reader.
const KEYS = [
  'name',
  'title',
  'tags',
  'a-b',
  '_x',
  '__proto__',
  'null',
  'True',
  'yes',
  'on',
  'y',
  'x1',
  '1a',
  'a b',
  'a.b',
  'Null_ish',
];
const WORDS = [
  'api',
  'Cursor pagination',
  'a - b',
  'a  b',
  'wow!',
  'what?',
  'x=y',
  'a,b',
  'a;b',
  'f(x)',
  'a/b+c',
  "don't",
  'über',
  '名前',
  '_u',
  'null',
  'NULL',
  'nUll',
  'true',
  'False',
  'yes',
  'no',
  'on',
  'off',
  'y',
  'n',
  '~',
  '1.0',
  '1.0.0',
  '0x1F',
  '0o7',
  '1e3',
  '.5',
  '.inf',
  '.NaN',
  '+1',
  '-',
  '- a',
  'a: b',
  'a:',
  'a #c',
  'a#c',
  '#c',
  '&a',
  '*a',
  '!t',
  '|',
  '>',
  '%x',
  '@x',
  '`x',
  '?',
  '? x',
  'a\tb',
  'a\u00a0b',
  '\u00a0',
  'a\u2028b',
  '\ufeffa',
  'a\u200bb',
  '[a]',
  '{a: 1}',
  '[',
  ']',
];
const QUOTED_EDGES = [
  '""',
  "''",
  '"a\\"b"',
  "'a''b'",
  '"a\\nb"',
  '" a "',
  '"#x"',
  '"a" # c',
  '"a',
  "'a",
  '"a"b"',
  '"\'"',
  "'\"'",
];
const LIST_EDGES = [
  '[]',
  '[ ]',
  '[a,]',
  '[a,,b]',
  '[,a]',
  '[a, [b]]',
  '[ a , b ]',
  '[a  ,  b]',
  '[a, b] # c',
  '[a',
  '[\u00a0]',
  '[a b, c d]',
  '[a, b]x',
  '[a]]',
  '[[a]',
  '["a, b"]',
  "['a, b']",
  '["a", b]',
];
const SEPARATORS = [': ', ':  ', ':', ': \t', ' : ', ':\t', ':: '];
const word = fc.constantFrom(...WORDS);
const quoted = fc.oneof(
  word.map((w) => `"${w}"`),
  word.map((w) => `'${w}'`),
  fc.constantFrom(...QUOTED_EDGES),
);
const list = fc.oneof(
  fc.array(fc.oneof(word, quoted), { maxLength: 4 }).map((items) => `[${items.join(', ')}]`),
  fc.constantFrom(...LIST_EDGES),
);
const value = fc.oneof(word, quoted, list, fc.constant(''));
const pairLine = fc
  .tuple(
    fc.constantFrom(...KEYS),
    fc.constantFrom(...SEPARATORS),
    value,
    fc.constantFrom('', ' ', '  '),
  )
  .map(([k, sep, v, tail]) => `${k}${sep}${v}${tail}`);
const otherLine = fc.constantFrom(
  '',
  '   ',
  '# a comment',
  '#',
  '  indented: x',
  '- item',
  '  - item',
  '---',
  '...',
  '%YAML 1.2',
  'key:\r',
  '\ttab: x',
  'a: b: c',
  '? a',
  'k: |',
  '  text',
  'k: &a x',
  'j: *a',
);
const yamlLines = fc.array(fc.oneof({ weight: 4, arbitrary: pairLine }, otherLine), {
  maxLength: 8,
});
const preamble = fc.array(
  fc.constantFrom('', '  ', '<!-- rye:signed:x -->', '<!-- c --> ', '\u00a0', 'text'),
  { maxLength: 3 },
);
const frame = fc.constantFrom(
  ['```yaml', '```'],
  ['```yml', '```'],
  ['```yaml  ', '``` '],
  ['---', '---'],
  ['---', '...'],
  ['```yaml', ''],
  ['```json', '```'],
  ['', ''],
);

describe('readSimpleKnowledgeMetadata()', () => {
  it('reads the common shape, exactly as the full YAML reader does', async () => {
    expect(await agree(COMMON)).toBe(true);
    expect(readSimpleKnowledgeMetadata(COMMON, '.md')?.fields).toEqual({
      name: 'runtimes',
      title: 'Standard runtimes and primitives - how tools are run',
      entry_type: 'reference',
      version: '1.0.0',
      category: 'rye/core',
      tags: ['tools', 'runtimes', 'executor', 'python', 'node', 'shell', 'anchor'],
    });
    expect(await agree('no front matter\n```yaml\nname: x\n```\n')).toBe(true);
    expect(await agree('')).toBe(true);
  });

  it('leaves everything else to the full reader: numbers, nesting, escapes, \\r, other extensions', async () => {
    const hard = [
      '```yaml\nversion: 1.0\n```\n',
      '```yaml\nmeta:\n  a: 1\n```\n',
      '```yaml\nt: "a\\"b"\n```\n',
      '```yaml\nname: x\r\n```\n',
      '```yaml\nname: x\nname: y\n```\n',
      '```yaml\nname: x\n',
      '```yaml\nname: x # c\n```\n',
      `\`\`\`yaml\n${'k: v\n'.repeat(300)}\`\`\`\n`,
    ];
    for (const text of hard) {
      expect(readSimpleKnowledgeMetadata(text, '.md'), JSON.stringify(text)).toBeUndefined();
    }
    expect(readSimpleKnowledgeMetadata('name: x\n', '.yaml')).toBeUndefined();
  });

  it('agrees with the full YAML reader on every key, separator and value form', async () => {
    const values = [
      '',
      ...WORDS,
      ...WORDS.flatMap((w) => [`"${w}"`, `'${w}'`, `[${w}]`, `[a, ${w}]`, `["${w}", '${w}']`]),
      ...QUOTED_EDGES,
      ...LIST_EDGES,
    ];
    let answered = 0;
    for (const v of values) if (await agree(`\`\`\`yaml\nk: ${v}\n\`\`\`\n`)) answered += 1;
    for (const k of KEYS) if (await agree(`---\n${k}: v\n---\n`)) answered += 1;
    for (const sep of SEPARATORS)
      for (const v of ['a', '"a"', '[a]', ''])
        for (const tail of ['', ' ', '\t'])
          if (await agree(`\`\`\`yaml\nk${sep}${v}${tail}\n\`\`\`\n`)) answered += 1;
    expect(answered).toBeGreaterThan(150);
  });

  it('agrees with the full YAML reader on generated front matter (property)', async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(
        preamble,
        frame,
        yamlLines,
        fc.constantFrom('', '\n# body\n', '\nbody\r\n'),
        async (pre, [open, close], ys, body) => {
          const text = [...pre, open, ...ys, close].join('\n') + body;
          if (await agree(text)) answered += 1;
        },
      ),
      { numRuns: 3000 },
    );
    // The generator must reach the simple path often, or the property proves little.
    expect(answered).toBeGreaterThan(300);
  });
});
