import fc from 'fast-check';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../src/errors/index.js';
import { ITEM_TYPES } from '../../src/items/index.js';
import {
  MAX_MANIFEST_BYTES,
  parseManifest,
  parseManifestWith,
} from '../../src/bundle/manifest-parse.js';
import {
  bundleManifestPath,
  comparePaths,
  manifestPathProblem,
  pathRuleProblem,
} from '../../src/bundle/manifest-path.js';
import { serializeManifest } from '../../src/bundle/manifest-serialize.js';
import type { BundleManifest, ManifestEntry } from '../../src/bundle/types.js';
import { VECTORS_DIR } from '../helpers/vectors.js';

const HASH = 'a'.repeat(64);
const BUNDLE = `bundle:
  id: apps/task-manager
  version: 1.0.0
  created_at: '2026-02-11T00:00:00Z'
  entrypoint: ''
  description: ''
`;
const PYTHON_MANIFEST = join(
  VECTORS_DIR,
  'ryeos-4c01bfe54/files/.ai/bundles/rye-core/manifest.yaml',
);

/** A manifest with one `files` block (map form unless the block says otherwise). */
function manifest(files: string, bundle = BUNDLE): string {
  return `# rye:signed:2026-02-11T00:00:00Z:x:y:z\n${bundle}files:\n${files}`;
}

function entry(path: string, sha256 = HASH, inline = 'false'): string {
  return `  ${path}:\n    sha256: ${sha256}\n    inline_signed: ${inline}\n`;
}

/** The issues of a refused manifest; fails unless the refusal is BUNDLE_MANIFEST_INVALID. */
function issuesOf(text: string): string[] {
  try {
    parseManifest(text, 'test.yaml');
  } catch (error) {
    if (!isRyeError(error, 'BUNDLE_MANIFEST_INVALID')) throw error;
    expect(error.message).toMatch(/^Cannot read bundle manifest test\.yaml: /);
    return error.details['issues'] as string[];
  }
  throw new Error('expected BUNDLE_MANIFEST_INVALID, but the manifest parsed');
}

function billionLaughs(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i += 1) {
    const name = String.fromCharCode(97 + i);
    const prev = `*${String.fromCharCode(96 + i)}`;
    lines.push(`${name}: &${name} [${Array(9).fill(prev).join(',')}]`);
  }
  return `${BUNDLE}files: {}\nbomb:\n  ${lines.join('\n  ')}\n`;
}

describe('parseManifest() refuses hostile manifests with BUNDLE_MANIFEST_INVALID', () => {
  const cases: [string, string, RegExp][] = [
    ['a ../ path', manifest(entry('../etc/passwd')), /"\.\." segment/],
    ['a .. segment inside', manifest(entry('.ai/tools/../../x.py')), /"\.\." segment/],
    ['an absolute path', manifest(entry('/etc/passwd')), /absolute path/],
    ['a drive-letter path', manifest(entry('C:/Windows/x.dll')), /drive letter/],
    ['a backslash path', manifest(entry('.ai\\tools\\x.py')), /backslash/],
    ['a . segment', manifest(entry('.ai/./tools/x.py')), /"\." segment/],
    ['an empty segment', manifest(entry('.ai//x.py')), /empty path segment/],
    ['a dots-only segment', manifest(entry('.ai/.../x.py')), /only dots and spaces/],
    ['a control character', manifest(entry('".ai/x\\u0007.py"')), /control characters/],
    ['a NUL character', manifest(entry('".ai/x\\0.py"')), /control characters/],
    ['duplicate keys', manifest(entry('a.txt') + entry('a.txt')), /duplicate key "a.txt"/],
    ['duplicate bundle keys', manifest('  {}\n', `${BUNDLE}  id: other\n`), /duplicate key "id"/],
    [
      'a path listed twice in list form',
      manifest(`  - {path: a.txt, sha256: ${HASH}}\n  - {path: a.txt, sha256: ${HASH}}\n`),
      /listed twice/,
    ],
    [
      'two Unicode spellings of one path',
      manifest(entry('caf\u00e9.txt') + entry('cafe\u0301.txt')),
      /listed twice/,
    ],
    ['a non-hex hash', manifest(entry('a.txt', 'g'.repeat(64))), /64 lowercase hex/],
    ['a short hash', manifest(entry('a.txt', 'abc123')), /64 lowercase hex/],
    ['an upper-case hash', manifest(entry('a.txt', 'A'.repeat(64))), /64 lowercase hex/],
    ['a missing hash', manifest('  a.txt:\n    inline_signed: true\n'), /sha256: undefined/],
    [
      'a YAML alias',
      manifest(`  a.txt: {sha256: &h ${HASH}}\n  b.txt: {sha256: *h}\n`),
      /alias \*h/,
    ],
    ['a YAML anchor', manifest(entry('a.txt', `&h ${HASH}`)), /anchor &h/],
    ['an alias bomb (billion laughs)', billionLaughs(), /alias \*a is not allowed/],
    ['a !!js/function tag', manifest(entry('a.txt', `!!js/function "${HASH}"`)), /tag/],
    ['a !foo tag', manifest(entry('a.txt', `!foo ${HASH}`)), /tag !foo/],
    ['a non-boolean inline_signed', manifest(entry('a.txt', HASH, 'yes')), /"yes" is not true/],
    ['a null inline_signed', manifest(entry('a.txt', HASH, 'null')), /null is not true/],
    [
      'an empty bundle.id',
      manifest(entry('a.txt'), BUNDLE.replace('apps/task-manager', "''")),
      /empty/,
    ],
    ['an empty version', manifest(entry('a.txt'), BUNDLE.replace('1.0.0', "''")), /semantic/],
    ['a complex map key', manifest('  ? [a]\n  : {sha256: x}\n'), /plain scalars/],
    ['a missing bundle.id', manifest(entry('a.txt'), BUNDLE.replace(/ {2}id:.*\n/, '')), /id/],
    ['an item id with ..', manifest(entry('a.txt'), BUNDLE.replace('apps/', '../')), /\.\./],
    ['a bad version', manifest(entry('a.txt'), BUNDLE.replace('1.0.0', 'v1.0')), /semantic/],
    [
      'a float version',
      manifest(entry('a.txt'), BUNDLE.replace('1.0.0', '1.0')),
      /bundle\.version: 1 /,
    ],
    ['a non-string path key', manifest(entry('1.0')), /not a string/],
    ['a bare path in list form', manifest('  - a.txt\n'), /must be a map \{path/],
    ['a second YAML document', `${manifest(entry('a.txt'))}---\nx: 1\n`, /multiple documents/],
    [
      'a bad entrypoint type',
      manifest(entry('a.txt'), BUNDLE.replace("''", '{item_type: plan, item_id: x}')),
      /item_type: "plan"/,
    ],
  ];
  it.each(cases)('refuses %s', (_name, text, issue) => {
    expect(issuesOf(text).join('\n')).toMatch(issue);
  });

  it('refuses a manifest over the size cap before parsing it', () => {
    const text = manifest(entry('a.txt')) + `#${'x'.repeat(MAX_MANIFEST_BYTES)}\n`;
    expect(issuesOf(text)).toEqual([expect.stringMatching(/over the cap/)]);
  });

  it('collects every issue, not just the first', () => {
    const text = manifest(entry('../a', 'AB') + entry('/b'), BUNDLE.replace('1.0.0', 'x'));
    expect(issuesOf(text).length).toBeGreaterThanOrEqual(4);
  });
});

describe('parseManifest() refuses a bad shape, naming it', () => {
  it.each([
    ['- a list\n', 'the top level must be a map with "bundle" and "files"'],
    ['plain text\n', 'the top level must be a map with "bundle" and "files"'],
    [
      manifest(entry('a/b.txt'), BUNDLE.replace("entrypoint: ''", 'entrypoint: [tool, x]')),
      'bundle.entrypoint: must be a map {item_type, item_id}, "" or null',
    ],
    [
      manifest(entry('a/b.txt'), `${BUNDLE}  includes: app\n`),
      'bundle.includes: must be a list of folder paths',
    ],
    [manifest('  a/b.txt: 5\n'), 'files["a/b.txt"]: must be a map {sha256, inline_signed}'],
    [
      manifest(
        entry('a/b.txt'),
        BUNDLE.replace("entrypoint: ''", 'entrypoint: {item_type: tool, item_id: 5}'),
      ),
      'bundle.entrypoint.item_id: must be a string',
    ],
    [
      manifest(entry('a/b.txt'), `${BUNDLE}  includes: ['../up', 7]\n`),
      'bundle.includes[0]: path "../up" is refused: it has a ".." segment',
    ],
    [
      manifest(entry('a/b.txt'), `${BUNDLE}  includes: [app, app]\n`),
      'bundle.includes[1]: "app" is listed twice (first as "app")',
    ],
  ])('%j', (text, issue) => {
    expect(issuesOf(text)).toContain(issue);
  });
});

describe('parseManifest() reads real and legacy manifests', () => {
  it.skipIf(!existsSync(PYTHON_MANIFEST))('keeps every entry of the Python manifest', () => {
    const text = readFileSync(PYTHON_MANIFEST, 'utf8');
    const m = parseManifest(text, PYTHON_MANIFEST);
    const hashes = [...text.matchAll(/^ +sha256: ([0-9a-f]{64})$/gm)].map((x) => x[1]);
    expect(m.files.size).toBe(text.match(/sha256:/g)?.length);
    expect([...m.files.values()].map((e) => e.sha256).sort()).toEqual(hashes.sort());
    expect(m.bundle).toMatchObject({ id: 'rye-core', version: '0.1.0', entrypoint: null });
    expect([...m.files.keys()].every((p) => p.startsWith('.ai/'))).toBe(true);
  });

  it('keeps every hash of a legacy list-form manifest', () => {
    const hashes = ['1', '2', '3'].map((c) => c.repeat(64));
    const m = parseManifest(
      manifest(
        `  - {path: z.txt, sha256: '${hashes[0]}', inline_signed: true}\n` +
          `  - path: a.txt\n    sha256: '${hashes[1]}'\n  - {path: m/n.txt, sha256: '${hashes[2]}'}\n`,
      ),
      'legacy',
    );
    expect([...m.files]).toEqual([
      ['a.txt', { sha256: hashes[1], inlineSigned: false }],
      ['m/n.txt', { sha256: hashes[2], inlineSigned: false }],
      ['z.txt', { sha256: hashes[0], inlineSigned: true }],
    ]);
  });

  it('reads an entrypoint object and includes', () => {
    const bundle = BUNDLE.replace(
      "entrypoint: ''",
      'entrypoint: {item_type: directive, item_id: apps/task-manager/build}\n  includes: [web]',
    );
    const m = parseManifest(manifest(entry('web/App.jsx')), 'x');
    expect(parseManifest(manifest(entry('web/App.jsx'), bundle), 'x').bundle).toMatchObject({
      entrypoint: { itemType: 'directive', itemId: 'apps/task-manager/build' },
      includes: ['web'],
    });
    expect(m.bundle.includes).toEqual([]);
  });
});

const EXAMPLE: BundleManifest = {
  bundle: {
    id: 'apps/task-manager',
    version: '1.0.0',
    createdAt: '2026-02-11T00:00:00Z',
    entrypoint: { itemType: 'directive', itemId: 'apps/task-manager/build_crud_app' },
    description: 'CRUD task manager',
    includes: ['task-manager'],
  },
  files: new Map([
    ['.ai/directives/apps/task-manager/build_crud_app.md', { sha256: HASH, inlineSigned: true }],
  ]),
};

describe('serializeManifest()', () => {
  it('writes the documented layout', () => {
    expect(serializeManifest(EXAMPLE)).toBe(`bundle:
  id: apps/task-manager
  version: 1.0.0
  created_at: '2026-02-11T00:00:00Z'
  entrypoint:
    item_type: directive
    item_id: apps/task-manager/build_crud_app
  description: CRUD task manager
  includes:
    - task-manager
files:
  .ai/directives/apps/task-manager/build_crud_app.md:
    sha256: ${HASH}
    inline_signed: true
`);
  });

  it('writes null entrypoint, empty includes and YAML-ambiguous strings safely', () => {
    const floaty = `${'1'.repeat(30)}e${'1'.repeat(33)}`;
    const m: BundleManifest = {
      bundle: { ...EXAMPLE.bundle, entrypoint: null, includes: [] },
      files: new Map([['on', { sha256: floaty, inlineSigned: false }]]),
    };
    const text = serializeManifest(m);
    expect(text).toContain(
      '  entrypoint: null\n  description: CRUD task manager\n  includes: []\n',
    );
    expect(text).toContain(`  'on':\n    sha256: '${floaty}'\n`);
    expect(parseManifest(text, 'x')).toEqual(m);
  });

  it('refuses to write a manifest it would not read back', () => {
    const bad = { ...EXAMPLE, files: new Map([['../x', { sha256: HASH, inlineSigned: false }]]) };
    expect(() => serializeManifest(bad)).toThrow(/Cannot read bundle manifest/);
  });

  // Characters that steer YAML's choice of scalar style.
  const tricky = fc.string({ unit: fc.constantFrom(...' \n\t\ra#:-\'"\\\u2028\u0085') });
  const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), tricky);
  const segment = fc.oneof(
    tricky,
    fc.constantFrom('on', 'yes', '~', 'null', '1.0', '0o17', '-x', '? x', '#c', 'a: b', '*a'),
    fc.constantFrom('&a', '!t', '%x', '@x', "it's", '"q"', '[x]', '{x}', ' lead', 'trail ', 'ñ'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
    fc.stringMatching(/^[a-z0-9_.-]{1,10}$/),
  );
  const path = fc
    .array(segment, { minLength: 1, maxLength: 5 })
    .map((s) => s.join('/'))
    .filter((p) => manifestPathProblem(p) === undefined);
  const id = fc
    .array(fc.stringMatching(/^[a-z0-9_][a-z0-9_-]{0,8}$/), { minLength: 1, maxLength: 3 })
    .map((s) => s.join('/'));
  const hash = fc
    .uint8Array({ minLength: 32, maxLength: 32 })
    .map((b) => Buffer.from(b).toString('hex'));
  const arbManifest: fc.Arbitrary<BundleManifest> = fc.record({
    bundle: fc.record({
      id,
      version: fc
        .tuple(fc.nat(99), fc.nat(99), fc.nat(99), fc.constantFrom('', '-alpha.1', '+build.5'))
        .map(([a, b, c, d]) => `${a}.${b}.${c}${d}`),
      createdAt: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => `${d.toISOString().slice(0, 19)}Z`),
        text,
      ),
      entrypoint: fc.option(fc.record({ itemType: fc.constantFrom(...ITEM_TYPES), itemId: id })),
      description: text,
      includes: fc.uniqueArray(path, { maxLength: 3, selector: (p) => p.normalize('NFC') }),
    }),
    files: fc
      .uniqueArray(fc.tuple(path, hash, fc.boolean()), {
        maxLength: 300,
        selector: ([p]) => p.normalize('NFC'),
      })
      .map(
        (rows) =>
          new Map<string, ManifestEntry>(
            rows
              .sort((a, b) => comparePaths(a[0], b[0]))
              .map(([p, sha256, inlineSigned]) => [p, { sha256, inlineSigned }]),
          ),
      ),
  });

  it('round-trips: parse(serialize(m)) equals m, and serializing again is byte-identical', () => {
    fc.assert(
      fc.property(arbManifest, (m) => {
        const text = serializeManifest(m);
        const back = parseManifest(text, 'prop');
        expect(back).toEqual(m);
        expect([...back.files.keys()]).toEqual([...m.files.keys()]);
        expect(serializeManifest(back)).toBe(text);
      }),
    );
  });

  it('round-trips a bundle of 5000 files in code-point order', () => {
    const files = new Map<string, ManifestEntry>();
    const paths = Array.from(
      { length: 5000 },
      (_, i) => `app/${i % 7 === 0 ? '\u{1f600}' : '\uff01'}${i}.js`,
    );
    for (const p of paths.sort(comparePaths)) files.set(p, { sha256: HASH, inlineSigned: false });
    const m = { bundle: EXAMPLE.bundle, files };
    expect(parseManifest(serializeManifest(m), 'big')).toEqual(m);
    // U+1F600 sorts after U+FF01 by code point, though its UTF-16 unit (0xD83D) sorts before.
    expect([...files.keys()][0]?.startsWith('app/\uff01')).toBe(true);
  });
});

describe('manifest paths', () => {
  it('accepts project-relative paths and refuses escapes', () => {
    expect(manifestPathProblem('.ai/tools/rye/x.py')).toBeUndefined();
    expect(manifestPathProblem('web/src/App.jsx')).toBeUndefined();
    for (const bad of ['', '/x', 'a/../b', 'C:x', 'a\\b', 'a/./b', 'a//b', 'a/', '.. ', '\ud800'])
      expect(manifestPathProblem(bad)).toBeDefined();
  });

  it('its shortcut for plain paths accepts only what the full rule accepts', () => {
    const unit = fc.constantFrom(...'a_.-@+/ \\:~\u0000\u00e9'.split(''), '..', '...', 'C:');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (p) => {
        expect(manifestPathProblem(p)).toBe(pathRuleProblem(p));
      }),
      { numRuns: 20_000 },
    );
    const long = `a/${'b'.repeat(5000)}`;
    expect(manifestPathProblem(long)).toBe(pathRuleProblem(long));
    expect(manifestPathProblem(long)).toBeDefined();
  });

  it('bundleManifestPath() places the manifest under bundles/<id>/ and checks the id', () => {
    expect(bundleManifestPath('/p/.ai', 'apps/task-manager')).toBe(
      join('/p/.ai', 'bundles', 'apps', 'task-manager', 'manifest.yaml'),
    );
    expect(() => bundleManifestPath('/p/.ai', '../x')).toThrow(/Cannot use item id/);
  });
});

describe('parseManifest() on hostile 1 MB texts', () => {
  const MB = 1024 * 1024;
  /** `part(0) + part(1) + …` until the text reaches `size` characters. */
  const grow = (part: (i: number) => string, size = MB): string => {
    const parts: string[] = [];
    for (let i = 0, length = 0; length < size; i += 1) {
      parts.push(part(i));
      length += parts[i]?.length ?? 0;
    }
    return parts.join('');
  };

  it('refuses 500,000 nested flow sequences while tokenising (once a stack overflow)', () => {
    const issues = issuesOf(`${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}`);
    expect(issues).toEqual(['line 1: collections nested deeper than 16 levels']);
  });

  it('refuses 1 MB of tiny tokens at the token budget', () => {
    const issues = issuesOf(manifest(grow((i) => `  f${i}: 1\n`)));
    expect(issues).toEqual([expect.stringMatching(/^line \d+: more than \d+ YAML tokens$/)]);
  });

  it('refuses 1 MB of aliases at the token budget, or each alias, never expanding one', () => {
    expect(issuesOf(`a: &a x\nb: [${grow(() => '*a, ')}*a]\n`).join('\n')).toMatch(
      /more than \d+ YAML tokens/,
    );
    const fewer = issuesOf(`a: &a x\nb: [${'*a, '.repeat(5000)}*a]\n`);
    expect(fewer).toHaveLength(100);
  });

  it('reads a 1.2 MB manifest in the Python layout through the full parser', () => {
    const files = grow(
      (i) =>
        `  .ai/tools/pkg_${i % 10}/module_${i}.py:\n    inline_signed: true\n    sha256: '${String(i).padStart(64, '0')}'\n`,
      1.2 * MB,
    );
    let path: string | undefined;
    const m = parseManifestWith(manifest(files), 'python.yaml', { onPath: (p) => (path = p) });
    expect(path).toBe('full');
    expect(m.files.size).toBe(files.match(/sha256/g)?.length);
    expect(m.files.get('.ai/tools/pkg_7/module_7.py')).toEqual({
      sha256: '7'.padStart(64, '0'),
      inlineSigned: true,
    });
  });
});
