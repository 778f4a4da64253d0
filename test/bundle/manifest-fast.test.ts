import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../src/errors/index.js';
import { isFastKey, tryParseFilesFast } from '../../src/bundle/manifest-fast.js';
import { parseManifestWith } from '../../src/bundle/manifest-parse.js';
import { comparePaths, manifestPathProblem } from '../../src/bundle/manifest-path.js';
import { serializeManifestWith } from '../../src/bundle/manifest-serialize.js';
import type { BundleManifest, ManifestEntry } from '../../src/bundle/types.js';

const HASH = 'a'.repeat(64);
const DIGITS = '1'.repeat(64);
const FLOATY = `${'1'.repeat(30)}e${'1'.repeat(33)}`;
const BUNDLE: BundleManifest['bundle'] = {
  id: 'apps/task-manager',
  version: '1.0.0',
  createdAt: '2026-02-11T00:00:00Z',
  entrypoint: { itemType: 'directive', itemId: 'apps/task-manager/build' },
  description: 'CRUD task manager',
  includes: ['task-manager'],
};

type Outcome = { ok: BundleManifest } | { code: string; details: unknown };

/** What parsing gives, with the fast path or with full YAML only, and which path read it. */
function outcome(
  text: string,
  fast: boolean,
): { result: Outcome; path?: 'fast' | 'full' | undefined } {
  let path: 'fast' | 'full' | undefined;
  try {
    const ok = parseManifestWith(text, 't', { fast, onPath: (p) => (path = p) });
    return { result: { ok }, path };
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return { result: { code: error.code, details: error.details }, path };
  }
}

/** Asserts both parsers agree on `text`; returns the path the fast-enabled parse took. */
function agree(text: string): 'fast' | 'full' | undefined {
  const fast = outcome(text, true);
  const full = outcome(text, false);
  expect(full.path).toBe('full');
  expect(fast.result).toEqual(full.result);
  if ('ok' in fast.result && 'ok' in full.result)
    expect([...fast.result.ok.files.keys()]).toEqual([...full.result.ok.files.keys()]);
  return fast.path;
}

function manifestOf(rows: [string, string, boolean][]): BundleManifest {
  const files = new Map<string, ManifestEntry>();
  for (const [p, sha256, inlineSigned] of rows.sort((a, b) => comparePaths(a[0], b[0])))
    files.set(p, { sha256, inlineSigned });
  return { bundle: BUNDLE, files };
}

const fastSegment = fc.stringMatching(/^[A-Za-z0-9_.][A-Za-z0-9_.@+-]{0,8}$/);
const otherSegment = fc.oneof(
  fc.constantFrom('caf\u00e9', '\u{1f600}', 'on', 'a b', '#c', 'x:y', '-x', '&a', '*a', "it's"),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }),
);
const path = fc.oneof(
  { weight: 8, arbitrary: fc.array(fastSegment, { minLength: 2, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(fastSegment, { minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.array(fc.oneof(fastSegment, otherSegment), { maxLength: 3 }) },
);
const goodPath = path.map((s) => s.join('/')).filter((p) => manifestPathProblem(p) === undefined);
const hash = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .map((b) => Buffer.from(b).toString('hex'))
      .filter((h) => /[acdf]/.test(h)),
  },
  { weight: 1, arbitrary: fc.constantFrom(DIGITS, FLOATY, '0'.repeat(64)) },
  {
    weight: 1,
    arbitrary: fc.stringMatching(/^[0-9]{64}$/),
  },
);
const description = fc.oneof(
  fc.string({ unit: fc.constantFrom(...' \n\ta#:-\'"\\files') }),
  fc.constantFrom('', 'files:', '\nfiles:\n', 'x\n\nfiles:\n  a/b:\n'),
);
const arbManifest: fc.Arbitrary<BundleManifest> = fc
  .record({
    description,
    rows: fc.uniqueArray(fc.tuple(goodPath, hash, fc.boolean()), {
      maxLength: 60,
      selector: ([p]) => p.normalize('NFC'),
    }),
  })
  .map(({ description: d, rows }) => ({
    ...manifestOf(rows),
    bundle: { ...BUNDLE, description: d },
  }));

describe('manifest fast path: equivalence with the full YAML path', () => {
  it('round-trips, writes the same bytes as yaml, and reads with the fast path when it can', () => {
    fc.assert(
      fc.property(arbManifest, (m) => {
        const text = serializeManifestWith(m);
        expect(serializeManifestWith(m, { fast: false })).toBe(text);
        const read = outcome(text, true);
        expect(read.result).toEqual({ ok: m });
        expect(agree(text)).toBe(read.path);
        const allFast = m.files.size > 0 && [...m.files.keys()].every((p) => isFastKey(p));
        expect(read.path).toBe(allFast ? 'fast' : 'full');
      }),
      { numRuns: 200 },
    );
  });

  it('reads a 10,000-entry manifest with the fast path', () => {
    const rows: [string, string, boolean][] = [];
    for (let i = 0; i < 10_000; i += 1)
      rows.push([`.ai/tools/g${i % 97}/file-${i}.py`, HASH, i % 3 === 0]);
    rows.push(['.ai/x/digits', DIGITS, false], ['.ai/x/floaty', FLOATY, true]);
    const m = manifestOf(rows);
    const text = serializeManifestWith(m);
    expect(serializeManifestWith(m, { fast: false })).toBe(text);
    expect(text).toContain(`  .ai/x/digits:\n    sha256: '${DIGITS}'\n`);
    const read = outcome(text, true);
    expect(read.path).toBe('fast');
    expect(read.result).toEqual({ ok: m });
  });
});

describe('manifest fast path: refusals and odd layouts match the full YAML path', () => {
  const sig = '# rye:signed:2026-02-11T00:00:00Z:x:y:z\n';
  const head = `bundle:\n  id: apps/x\n  version: 1.0.0\n  created_at: '2026-02-11T00:00:00Z'\n  entrypoint: ''\n  description: ''\n`;
  const group = (k: string, h = HASH, b = 'false') =>
    `  ${k}:\n    sha256: ${h}\n    inline_signed: ${b}\n`;
  const body = group('a/b') + group('c/d', `'${DIGITS}'`, 'true');
  const cases: [string, string, 'fast' | 'full'][] = [
    ['the canonical form', sig + head + 'files:\n' + body, 'fast'],
    ['no final newline', sig + head + 'files:\n' + body.slice(0, -1), 'fast'],
    ['a plain all-digit hash (a number)', head + 'files:\n' + group('a/b', DIGITS), 'full'],
    ['a plain float-like hash', head + 'files:\n' + group('a/b', FLOATY), 'full'],
    ['a path failing the path rule', head + 'files:\n' + group('a/../b'), 'full'],
    ['a segment of dots', head + 'files:\n' + group('a/.../b'), 'full'],
    ['an empty segment', head + 'files:\n' + group('a//b'), 'full'],
    ['a trailing slash', head + 'files:\n' + group('a/b/'), 'full'],
    ['keys out of order', head + 'files:\n' + group('c/d') + group('a/b'), 'full'],
    ['keys in order', head + 'files:\n' + group('a/b') + group('a/b.x') + group('a/c'), 'fast'],
    ['an empty files section', head + 'files:\n', 'full'],
    ['a duplicate key', head + 'files:\n' + group('a/b') + group('a/b'), 'full'],
    ['a second files key', head + 'files: {}\nfiles:\n' + body, 'full'],
    ['a document end marker', head + '...\nfiles:\n' + body, 'full'],
    ['a document start marker', '---\n' + head + 'files:\n' + body, 'fast'],
    ['a %YAML 1.1 directive', '%YAML 1.1\n---\n' + head + 'files:\n' + body, 'full'],
    ['a flow-map root', '{bundle: {id: apps/x, version: 1.0.0}}\nfiles:\n' + body, 'full'],
    ['an indented root', head.replace(/^/gm, '  ') + 'files:\n' + body, 'full'],
    ['a block-scalar root', '--- |\n  x\nfiles:\n' + body, 'full'],
    ['an open quoted string', head + '  x: "abc\nfiles:\n' + body + '"\n', 'full'],
    ['an open flow map', head + '  x: {a: 1,\nfiles:\n' + body, 'full'],
    ['a keep block scalar', head + '  x: |+\n    y\n\nfiles:\n' + body, 'fast'],
    ['a bad bundle', head.replace('1.0.0', 'v1') + 'files:\n' + body, 'fast'],
    ['an anchor in the header', head + '  x: &a 1\nfiles:\n' + body, 'full'],
    ['a tag in the header', head + '  x: !t 1\nfiles:\n' + body, 'full'],
    ['files before bundle', 'files:\n' + body, 'fast'],
    ['a key without /', head + 'files:\n' + group('a.txt'), 'full'],
    ['a key of 1001 characters', head + 'files:\n' + group(`a/${'x'.repeat(999)}`), 'full'],
    ['a key of 1100 characters', head + 'files:\n' + group(`a/${'x'.repeat(1098)}`), 'full'],
    ['CRLF lines', (head + 'files:\n' + body).replace(/\n/g, '\r\n'), 'full'],
    ['a trailing blank line', head + 'files:\n' + body + '\n', 'full'],
    ['a trailing comment', head + 'files:\n' + body + '# c\n', 'full'],
    ['a tab', head + 'files:\n' + body.replace('    inline_signed', '\tinline_signed'), 'full'],
    ['another top-level key after', head + 'files:\n' + body + 'x: 1\n', 'full'],
  ];
  it.each(cases)('%s', (_name, text, expected) => {
    expect(agree(text)).toBe(expected);
  });

  it('agrees on ~500 random single edits of a canonical manifest', () => {
    const rows: [string, string, boolean][] = [
      ['.ai/tools/x.py', HASH, true],
      ['web/src/App.jsx', 'b'.repeat(63) + 'c', false],
      ['a/digits', DIGITS, false],
      ['a/floaty', FLOATY, true],
      ['z_9/@+-.x', 'f'.repeat(64), false],
    ];
    const canonical = sig + serializeManifestWith(manifestOf(rows));
    expect(agree(canonical)).toBe('fast');
    const lines = canonical.split('\n');
    const char = fc.constantFrom(...' \t\n\r#:-_/.&*!%|>\'"{}[],?@`0189aefxyz\u00e9\u2028\ufeff');
    const at = fc.nat(canonical.length);
    const line = fc.nat(lines.length - 1);
    const edit = fc.oneof(
      fc.tuple(at, char).map(([i, c]) => canonical.slice(0, i) + c + canonical.slice(i)),
      at.map((i) => canonical.slice(0, i) + canonical.slice(i + 1)),
      fc.tuple(at, char).map(([i, c]) => canonical.slice(0, i) + c + canonical.slice(i + 1)),
      line.map((n) => [...lines.slice(0, n + 1), ...lines.slice(n)].join('\n')),
      fc
        .tuple(line, fc.constantFrom('# c', '  # c', '    #', ''))
        .map(([n, c]) => [...lines.slice(0, n), c, ...lines.slice(n)].join('\n')),
      fc
        .tuple(line, fc.constantFrom(' ', '  ', '\t', '-1'))
        .map(([n, s]) =>
          lines.map((l, i) => (i !== n ? l : s === '-1' ? l.slice(1) : s + l)).join('\n'),
        ),
      fc
        .tuple(at, fc.constantFrom('&a ', '*a', ' &a', ' *a', '\t', '!t '))
        .map(([i, s]) => canonical.slice(0, i) + s + canonical.slice(i)),
    );
    let fastRuns = 0;
    fc.assert(
      fc.property(edit, (text) => {
        if (agree(text) === 'fast') fastRuns += 1;
      }),
      { numRuns: 500 },
    );
    // The edits must also hit the fast path, or this would only test YAML against itself.
    expect(fastRuns).toBeGreaterThan(10);
  });

  it('isFastKey() is exactly: plain key characters, a `/`, no indicator first, and the path rule', () => {
    const spec = (k: string) =>
      k.length <= 1000 &&
      /^[A-Za-z0-9_.][A-Za-z0-9_.@+/-]*$/.test(k) &&
      k.includes('/') &&
      manifestPathProblem(k) === undefined;
    const key = fc.string({ unit: fc.constantFrom(...'aZ09_.@+-/ :é'), maxLength: 12 });
    fc.assert(
      fc.property(key, (k) => {
        expect(isFastKey(k)).toBe(spec(k));
      }),
      { numRuns: 5000 },
    );
    for (const k of ['.ai/x', 'a/.b', 'a/..b', '_/_', '.@/x', 'a/b-c@d+e.f'])
      expect([k, isFastKey(k)]).toEqual([k, true]);
    for (const k of [
      './x',
      'a/..',
      'a/.../b',
      '@a/b',
      'a//b',
      '/a',
      'a/',
      'a',
      `a/${'x'.repeat(999)}`,
    ])
      expect([k, isFastKey(k)]).toEqual([k, false]);
  });

  it('tryParseFilesFast() refuses anything but the exact groups', () => {
    expect(tryParseFilesFast(`files:\n${group('a/b')}`)?.files).toEqual(
      new Map([['a/b', { sha256: HASH, inlineSigned: false }]]),
    );
    const read = tryParseFilesFast(
      `files:\n${group('a/b', `'${DIGITS}'`, 'true')}${group('a/c', HASH, 'false')}`,
    );
    expect([...(read?.files ?? [])]).toEqual([
      ['a/b', { sha256: DIGITS, inlineSigned: true }],
      ['a/c', { sha256: HASH, inlineSigned: false }],
    ]);
    for (const bad of [
      `files:\n`,
      `files: \n${group('a/b')}`,
      `files:\n${group('a/b').replace('  a/b', '   a/b')}`,
      `files:\n${group('a/b', HASH.toUpperCase())}`,
      `files:\n${group('a/b', `"${HASH}"`)}`,
      `files:\n${group('a/b', HASH, 'True')}`,
      `files:\n${group('a/b')}\n`,
      `files:\n${group('a /b')}`,
      `files:\n${group('-a/b')}`,
      `files:\n${group('a/b:')}`,
      `files:\n${group('a/./b')}`,
      `files:\n${group('a/b')}${group('a/b')}`,
      `files:\n${group('b/a')}${group('a/b')}`,
      `files:\n${group('a/b').replace('false', 'fals')}`,
      `files:\n${group('a/b')}${group('a/c', `'${HASH}`)}`,
    ])
      expect(tryParseFilesFast(bad)).toBeUndefined();
  });
});
