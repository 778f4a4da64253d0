import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../src/errors/index.js';
import type { ErrorCode } from '../../src/errors/index.js';
import { MAX_LOCKFILE_BYTES, parseLockfile } from '../../src/lockfile/index.js';

const H1 = 'a'.repeat(64);
const H2 = 'b'.repeat(64);
const H3 = 'c'.repeat(64);

type Doc = Record<string, unknown>;

function v1(): Doc {
  return {
    lockfile_version: 1,
    generated_at: '2026-02-11T00:00:00Z',
    root: { tool_id: 'web/scraper', version: '1.0.0', integrity: H1 },
    resolved_chain: [
      {
        item_id: 'web/scraper',
        space: 'project',
        tool_type: 'python',
        executor_id: 'rye/core/runtimes/python_runtime',
        integrity: H1,
      },
      {
        item_id: 'rye/core/runtimes/python_runtime',
        space: 'system',
        tool_type: 'runtime',
        executor_id: 'rye/core/primitives/subprocess',
        integrity: H2,
      },
      {
        item_id: 'rye/core/primitives/subprocess',
        space: 'system',
        tool_type: 'primitive',
        executor_id: null,
        integrity: H3,
      },
    ],
    registry: null,
  };
}

function v2(): Doc {
  return {
    ...v1(),
    lockfile_version: 2,
    verified_deps: {
      anchor_path: '.ai/tools/web',
      scope: 'anchor',
      files: { 'lib/util.py': `sha256:${H2}`, 'scraper.py': `sha256:${H3}` },
    },
  };
}

const text = (doc: unknown): string => JSON.stringify(doc, null, 2);
const chainOf = (doc: Doc): Doc[] => doc['resolved_chain'] as Doc[];
const depsOf = (doc: Doc): Doc => doc['verified_deps'] as Doc;

/** The refusal's code and its issues (the message when there are none). */
function refusal(source: string): { code: ErrorCode; issues: string[] } {
  try {
    parseLockfile(source, 'test.lock.json');
  } catch (error) {
    if (!isRyeError(error)) throw error;
    const issues = error.details['issues'];
    return { code: error.code, issues: Array.isArray(issues) ? issues : [error.message] };
  }
  throw new Error('parseLockfile() accepted the text');
}

function expectIssue(doc: unknown, fragment: string): void {
  const { code, issues } = refusal(typeof doc === 'string' ? doc : text(doc));
  expect(code).toBe('LOCKFILE_INVALID');
  expect(issues.join('\n')).toContain(fragment);
}

describe('parseLockfile() accepts', () => {
  it('a v1 lockfile, mapping every field', () => {
    const lock = parseLockfile(text(v1()), 'x');
    expect(lock).toEqual({
      lockfileVersion: 1,
      generatedAt: '2026-02-11T00:00:00Z',
      root: { toolId: 'web/scraper', version: '1.0.0', integrity: H1 },
      resolvedChain: [
        expect.objectContaining({ itemId: 'web/scraper', toolType: 'python' }),
        expect.objectContaining({ space: 'system', executorId: 'rye/core/primitives/subprocess' }),
        expect.objectContaining({ executorId: null, integrity: H3 }),
      ],
      registry: null,
      signature: null,
    });
    expect('verifiedDeps' in lock).toBe(false);
  });

  it('a v2 lockfile with its verified_deps', () => {
    const lock = parseLockfile(text(v2()), 'x');
    expect(lock.lockfileVersion).toBe(2);
    expect(lock.verifiedDeps).toEqual({
      anchorPath: '.ai/tools/web',
      scope: 'anchor',
      files: { 'lib/util.py': `sha256:${H2}`, 'scraper.py': `sha256:${H3}` },
    });
  });

  it('a Python-written v1 (+00:00, system:<bundle>, extra keys, no final newline)', () => {
    const python =
      '{"lockfile_version": 1, "generated_at": "2026-02-11T00:00:00+00:00", ' +
      `"root": {"tool_id": "rye/core/bundler/bundler", "version": "1.0.0", "integrity": "${H1}"}, ` +
      '"resolved_chain": [{"item_id": "rye/core/bundler/bundler", "space": "system:rye-core", ' +
      `"tool_type": "python", "executor_id": null, "integrity": "${H1}"}], ` +
      '"registry": null, "extra_key": 1}';
    const lock = parseLockfile(python, 'python.lock.json');
    expect(lock.generatedAt).toBe('2026-02-11T00:00:00+00:00');
    expect(lock.resolvedChain[0]?.space).toBe('system:rye-core');
  });

  it('a missing registry as null and a registry object as is', () => {
    const doc = v1();
    delete doc['registry'];
    expect(parseLockfile(text(doc), 'x').registry).toBeNull();
    const pulled = { ...v1(), registry: { url: 'https://r.example', n: 1 } };
    expect(parseLockfile(text(pulled), 'x').registry).toEqual({ url: 'https://r.example', n: 1 });
  });

  it('a files path named __proto__ as a plain path, never a prototype', () => {
    const doc = v2();
    const source = text(doc).replace('"scraper.py"', '"__proto__"');
    const files = parseLockfile(source, 'x').verifiedDeps?.files ?? {};
    expect(Object.keys(files)).toEqual(['lib/util.py', '__proto__']);
    expect(Object.getPrototypeOf(files)).toBe(Object.prototype);
  });

  it('an anchor_path of "." for a tool anchored at the base folder itself', () => {
    const doc = v2();
    depsOf(doc)['anchor_path'] = '.';
    const lock = parseLockfile(text(doc), 't');
    expect([lock.lockfileVersion, lock.verifiedDeps?.anchorPath]).toEqual([2, '.']);
  });

  it('a top-level _signature string as the signature', () => {
    const doc = { _signature: 'rye:signed:whatever', ...v1() };
    expect(parseLockfile(text(doc), 'x').signature).toBe('rye:signed:whatever');
  });
});

describe('parseLockfile() refuses', () => {
  it('malformed JSON', () => expectIssue('{"lockfile_version": 1,', 'unexpected end of input'));

  it('duplicate keys', () => {
    expectIssue('{"lockfile_version": 1, "lockfile_version": 2}', 'duplicate key');
  });

  it('a top level that is not an object', () => expectIssue('[1]', 'not a JSON object'));

  it('text over the size cap', () => {
    expectIssue(' '.repeat(MAX_LOCKFILE_BYTES) + '{}', 'over the cap');
  });

  for (const key of ['generated_at', 'root', 'resolved_chain']) {
    it(`a missing ${key}`, () => {
      const doc = v1();
      delete doc[key];
      expectIssue(doc, `${key}: missing`);
    });
  }

  for (const key of ['tool_id', 'version', 'integrity']) {
    it(`a missing root.${key}`, () => {
      const doc = v1();
      delete (doc['root'] as Doc)[key];
      expectIssue(doc, `root.${key}: missing`);
    });
  }

  for (const key of ['item_id', 'space', 'tool_type', 'executor_id', 'integrity']) {
    it(`a missing resolved_chain[n].${key}`, () => {
      const doc = v1();
      delete chainOf(doc)[1]?.[key];
      expectIssue(doc, `resolved_chain[1].${key}: missing`);
    });
  }

  it('a missing lockfile_version as LOCKFILE_INVALID', () => {
    const doc = v1();
    delete doc['lockfile_version'];
    expectIssue(doc, 'lockfile_version: missing');
  });

  for (const lexeme of ['0', '3', '"2"', '1.0', '1e0', 'true', 'null']) {
    it(`lockfile_version ${lexeme} as unsupported`, () => {
      const source = text(v1()).replace('"lockfile_version": 1,', `"lockfile_version": ${lexeme},`);
      expect(refusal(source).code).toBe('LOCKFILE_VERSION_UNSUPPORTED');
    });
  }

  it('an integrity that is not lowercase hex', () => {
    const doc = v1();
    (chainOf(doc)[2] as Doc)['integrity'] = 'C'.repeat(64);
    expectIssue(doc, 'resolved_chain[2].integrity: is not 64 lowercase hex');
  });

  it('an integrity of the wrong length', () => {
    const doc = v1();
    (doc['root'] as Doc)['integrity'] = 'a'.repeat(63);
    expectIssue(doc, 'root.integrity: is not 64 lowercase hex');
  });

  it('an invalid item id', () => {
    const doc = v1();
    (chainOf(doc)[1] as Doc)['item_id'] = '../escape';
    expectIssue(doc, 'resolved_chain[1].item_id: it contains ".."');
  });

  it('an unknown space', () => {
    const doc = v1();
    (chainOf(doc)[1] as Doc)['space'] = 'global';
    expectIssue(doc, 'resolved_chain[1].space');
  });

  it('an empty chain', () => expectIssue({ ...v1(), resolved_chain: [] }, 'is empty'));

  it('a chain longer than 10', () => {
    const doc = v1();
    const chain = chainOf(doc);
    expectIssue({ ...doc, resolved_chain: Array(11).fill(chain[0]) }, 'over the cap of 10');
  });

  it('root.tool_id not matching chain[0]', () => {
    const doc = v1();
    (doc['root'] as Doc)['tool_id'] = 'web/other';
    expectIssue(doc, 'root.tool_id: "web/other" is not resolved_chain[0].item_id');
  });

  it('root.integrity not matching chain[0]', () => {
    const doc = v1();
    (doc['root'] as Doc)['integrity'] = H2;
    expectIssue(doc, 'root.integrity: differs from resolved_chain[0].integrity');
  });

  it('a non-string _signature', () => expectIssue({ ...v1(), _signature: 1 }, '_signature'));

  it('a registry that is not an object', () => {
    expectIssue({ ...v1(), registry: ['x'] }, 'registry: is an array');
  });

  it('a v1 carrying verified_deps', () => {
    expectIssue({ ...v2(), lockfile_version: 1 }, 'verified_deps: is not allowed');
  });

  it('a v2 without verified_deps', () => {
    expectIssue({ ...v1(), lockfile_version: 2 }, 'verified_deps: missing');
  });

  const anchors: [string, string][] = [
    ['/etc', 'it is absolute'],
    ['C:/Users', 'drive letter'],
    ['.ai/../..', '".." segment'],
    ['..', '".." segment'],
    ['.ai\\tools', 'backslash'],
    ['./.ai', '"." segment'],
    ['.ai//tools', 'empty segment'],
  ];
  for (const [anchor, why] of anchors) {
    it(`anchor_path ${JSON.stringify(anchor)}`, () => {
      const doc = v2();
      depsOf(doc)['anchor_path'] = anchor;
      expectIssue(doc, 'verified_deps.anchor_path: it');
      expectIssue(doc, why);
    });
  }

  for (const key of ['../outside.py', '/etc/passwd', 'lib\\x.py', 'a/./b.py', 'a/']) {
    it(`a files key escaping its anchor: ${JSON.stringify(key)}`, () => {
      const doc = v2();
      depsOf(doc)['files'] = { [key]: `sha256:${H1}` };
      expectIssue(doc, `verified_deps.files[${JSON.stringify(key)}]`);
    });
  }

  it('a files value that is not sha256:<hex>', () => {
    const doc = v2();
    depsOf(doc)['files'] = { 'a.py': H1 };
    expectIssue(doc, 'is not "sha256:<64 lowercase hex>"');
  });

  it('an unknown scope', () => {
    const doc = v2();
    depsOf(doc)['scope'] = 'everything';
    expectIssue(doc, 'verified_deps.scope');
  });

  it('a generated_at that is not an ISO 8601 timestamp', () => {
    expectIssue(
      { ...v1(), generated_at: '11 Feb 2026' },
      'generated_at: is not an ISO 8601 timestamp',
    );
  });

  it('fields of the wrong kind, each named with what it is', () => {
    const doc = v1();
    doc['root'] = null;
    (chainOf(doc)[0] as Doc)['item_id'] = { id: 'x' };
    (chainOf(doc)[1] as Doc)['integrity'] = 7;
    const { issues } = refusal(text(doc));
    expect(issues).toEqual(
      expect.arrayContaining([
        'root: is null, not an object',
        'resolved_chain[0].item_id: is an object, not a string',
        'resolved_chain[1].integrity: is a number, not a string',
      ]),
    );
  });

  it('says in one message what the JSON parser found, where', () => {
    expect(() => parseLockfile('{"lockfile_version": 1,', 'x.lock.json')).toThrow(
      expect.objectContaining({
        code: 'LOCKFILE_INVALID',
        message:
          'Cannot read lockfile x.lock.json: unexpected end of input, expecting a key at line 1 column 24',
      }),
    );
  });

  it('with every issue collected into one error', () => {
    const doc = v1();
    (doc['root'] as Doc)['integrity'] = 'x';
    (chainOf(doc)[1] as Doc)['space'] = 'nowhere';
    delete doc['generated_at'];
    expect(refusal(text(doc)).issues).toHaveLength(3);
  });
});

describe('parseLockfile() on hostile 1 MB texts', () => {
  const MB = 1024 * 1024;

  it('refuses 500,000 nested arrays at the JSON depth cap', () => {
    const { code, issues } = refusal(`${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}`);
    expect(code).toBe('LOCKFILE_INVALID');
    expect(issues.join('\n')).toContain('nesting deeper than 64 levels');
  });

  it('lists every bad path of a 1 MB files map', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 25_000; i += 1) files[`../escape/${i}.py`] = `sha256:${H2}`;
    const doc = v2();
    depsOf(doc)['files'] = files;
    const source = text(doc);
    expect(source.length).toBeGreaterThan(MB);
    const { code, issues } = refusal(source);
    expect(code).toBe('LOCKFILE_INVALID');
    expect(issues).toHaveLength(25_000);
    expect(issues[0]).toContain('has a ".." segment');
  });

  it('reads a 1 MB v2 lockfile of 12,000 files', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12_000; i += 1) files[`pkg_${i % 10}/module_${i}.py`] = `sha256:${H3}`;
    const doc = v2();
    depsOf(doc)['files'] = files;
    const source = text(doc);
    expect(source.length).toBeGreaterThan(MB);
    const lockfile = parseLockfile(source, 'big.lock.json');
    expect(lockfile.lockfileVersion).toBe(2);
    expect(Object.keys(lockfile.verifiedDeps?.files ?? {})).toHaveLength(12_000);
  });
});
