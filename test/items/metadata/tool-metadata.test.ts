import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import type { ErrorCode } from '../../../src/errors/index.js';
import { extractToolMetadata } from '../../../src/items/metadata/tool-metadata.js';

const SIGNATURE =
  'rye:signed:2026-11-22T08:00:00Z:033dd60eb8be50743d3a4e3d56cdfcfc0920741281286a00cab8deb9c00d1177:j7M-pnxlG49-FPr8FOwHO0TKUVQLdWq5IUR6U2Cd7EhzsmS0mLJzhKrEDneenXctKdWIT_jQ6za8vmuv2QnKCA==:9d65c1cc10c335a2';

/** Runs `extract` and returns the RyeError it throws (failing the test if it does not). */
function refusal(extract: () => unknown, code: ErrorCode = 'METADATA_PARSE_FAILED'): Error {
  try {
    extract();
  } catch (error) {
    expect(isRyeError(error, code), `expected ${code}, got ${String(error)}`).toBe(true);
    return error as Error;
  }
  throw new Error('expected the extraction to be refused');
}

const lines = (...text: string[]): string => `${text.join('\n')}\n`;

// The seed's test_runner.py (seed 002, "The Bundle Tools"), with Python's False.
const SEED_TOOL = lines(
  '# rye:signed:2026-02-11T00:00:00Z:CONTENT_HASH:ED25519_SIG:PUBKEY_FP',
  '"""Test Runner Tool — execute the application test suite."""',
  '',
  '__version__ = "1.0.0"',
  '__tool_type__ = "python"',
  '__executor_id__ = "rye/core/runtimes/node_runtime"',
  '__category__ = "apps/task-manager"',
  '__tool_description__ = "Run the test suite via npm test and report results"',
  '',
  'ENV_CONFIG = {',
  '    "interpreter": {',
  '        "type": "node_modules",',
  '        "search_paths": ["node_modules/.bin"],',
  '        "var": "RYE_NODE",',
  '    },',
  '    "env": {',
  '        "NODE_ENV": "test",',
  '        "CI": "true",',
  '    },',
  '}',
  '',
  'CONFIG = {',
  '    "command": "${RYE_NODE}",',
  '    "args": ["--test"],',
  '    "timeout": 120,',
  '}',
  '',
  'CONFIG_SCHEMA = {',
  '    "type": "object",',
  '    "properties": {',
  '        "suite": {',
  '            "type": "string",',
  '            "description": "Test suite to run (all, server, client)",',
  '            "default": "all",',
  '        },',
  '        "watch": {',
  '            "type": "boolean",',
  '            "description": "Run in watch mode",',
  '            "default": False,',
  '        },',
  '    },',
  '}',
);

describe('extractToolMetadata() for Python', () => {
  it('reads a tool behind a shebang and a signature line', () => {
    const text = lines(
      '#!/usr/bin/env python3',
      `# ${SIGNATURE}`,
      '"""Echo tool."""',
      '__version__ = "1.0.0"',
      '__tool_type__ = "python"',
      '__executor_id__ = "rye/core/runtimes/python_script_runtime"',
      '__category__ = "demo"',
      '__tool_description__ = "Echo"',
      'print("hi")',
    );
    expect(extractToolMetadata(text, '.py', 'demo/with_shebang.py')).toEqual({
      kind: 'tool',
      isEntryPoint: true,
      fields: {
        version: '1.0.0',
        tool_type: 'python',
        executor_id: 'rye/core/runtimes/python_script_runtime',
        category: 'demo',
        description: 'Echo',
      },
      extra: {},
    });
  });

  it("reads the seed's example tool with its CONFIG_SCHEMA, ENV_CONFIG and CONFIG dicts", () => {
    const meta = extractToolMetadata(SEED_TOOL, '.py', 'apps/test_runner.py');
    expect(meta.isEntryPoint).toBe(true);
    expect(meta.fields.executor_id).toBe('rye/core/runtimes/node_runtime');
    expect(meta.fields.env_config).toEqual({
      interpreter: { type: 'node_modules', search_paths: ['node_modules/.bin'], var: 'RYE_NODE' },
      env: { NODE_ENV: 'test', CI: 'true' },
    });
    expect(meta.fields.config).toEqual({ command: '${RYE_NODE}', args: ['--test'], timeout: 120 });
    expect(meta.fields.config_schema).toMatchObject({
      type: 'object',
      properties: { watch: { type: 'boolean', default: false } },
    });
  });

  it("refuses the seed's lowercase false, which Python would not run either", () => {
    const text = SEED_TOOL.replace('"default": False', '"default": false');
    const error = refusal(() => extractToolMetadata(text, '.py', 'apps/test_runner.py'));
    expect(error.message).toMatch(
      /^Cannot parse CONFIG_SCHEMA in apps\/test_runner\.py: names are not literals \(found false\) at line 39 column 24$/,
    );
  });

  it('reads a CRLF file', () => {
    const text = lines(
      '"""Doc."""',
      '__version__ = "1.0.0"',
      'CONFIG = {',
      '  "a": 1,',
      '}',
    ).replace(/\n/g, '\r\n');
    expect(extractToolMetadata(text, '.py', 'crlf.py').fields).toEqual({
      version: '1.0.0',
      config: { a: 1 },
    });
  });

  it('ignores assignments inside a docstring', () => {
    const text = lines(
      '"""Tool.',
      '',
      '__version__ = "9.9.9"',
      '"""',
      "'''",
      'CONFIG = {"evil": True}',
      "'''",
      '__version__ = "1.0.0"',
    );
    expect(extractToolMetadata(text, '.py', 'doc.py').fields).toEqual({ version: '1.0.0' });
  });

  it('ignores assignments in comments, strings, f-string fields and bracketed continuations', () => {
    const text = lines(
      '# __version__ = "0.0.1"',
      'x = "\\',
      '__version__ = 1"',
      'y = f"{ {"k": "v"}["k"]!r:>10} {x:\'>4} {f\'{x}\'}"',
      'setup(',
      '__version__="0.0.2",',
      ')',
      'z = 1 + \\',
      '__version__',
      '__version__ = "1.0.0"',
    );
    expect(extractToolMetadata(text, '.py', 'tricky.py').fields).toEqual({ version: '1.0.0' });
  });

  it('ignores indented assignments, which are not module level', () => {
    const text = lines(
      '__version__ = "1.0.0"',
      'if True:',
      '    __version__ = "2.0.0"',
      'def f():',
      '    CONFIG = make()',
    );
    expect(extractToolMetadata(text, '.py', 'indented.py').fields).toEqual({ version: '1.0.0' });
  });

  it('tolerates type annotations, trailing comments and a trailing semicolon', () => {
    const text = lines(
      'CONFIG_SCHEMA: dict[str, "Any"] = {"type": "object"}  # schema',
      '__version__: str = "1.0.0";',
      'ENV_CONFIG: dict',
    );
    expect(extractToolMetadata(text, '.py', 'annotated.py').fields).toEqual({
      config_schema: { type: 'object' },
      version: '1.0.0',
    });
  });

  it('keeps an explicit None executor_id as present with null', () => {
    const meta = extractToolMetadata(lines('__executor_id__ = None'), '.py', 'primitive.py');
    expect(Object.hasOwn(meta.fields, 'executor_id')).toBe(true);
    expect(meta.fields.executor_id).toBeNull();
    expect(meta.isEntryPoint).toBe(true);
  });

  it('treats a helper module without metadata as a dependency', () => {
    const text = lines(
      '"""Helpers."""',
      'import os',
      '',
      'def helper():',
      '    return os.getcwd()',
    );
    const meta = extractToolMetadata(text, '.py', 'lib/helpers.py');
    expect(meta).toEqual({ kind: 'tool', isEntryPoint: false, fields: {}, extra: {} });
    expect(Object.hasOwn(meta.fields, 'executor_id')).toBe(false);
  });

  it('reads CONFIG alone without making the module an entry point', () => {
    const meta = extractToolMetadata(lines('CONFIG = {"timeout": 5}'), '.py', 'lib/config.py');
    expect(meta.isEntryPoint).toBe(false);
    expect(meta.fields).toEqual({ config: { timeout: 5 } });
  });

  it.each([
    [
      'a call',
      'CONFIG = make()',
      'Cannot parse CONFIG in t.py: calls are not literals (found make(...)) at line 2',
    ],
    [
      'an expression',
      'CONFIG = {} | BASE',
      'Cannot parse CONFIG in t.py: unexpected "|" after the literal',
    ],
    ['a second statement on the line', '__version__ = "1"; __version__ = "2"', 'unexpected "_"'],
    [
      'a chained assignment',
      '__version__ = VERSION = "1"',
      'names are not literals (found VERSION)',
    ],
    ['an augmented assignment', '__version__ += ".1"', '__version__ is not assigned a literal'],
    ['a subscript assignment', 'CONFIG["timeout"] = 9', 'CONFIG is not assigned a literal'],
    ['an import', 'from defaults import CONFIG', 'CONFIG is imported'],
    ['an f-string', '__version__ = f"{MAJOR}.0"', 'f-strings are code'],
  ])('refuses a recognised name bound by %s, naming the constant and line', (_label, line, why) => {
    const text = lines('"""Tool."""', line);
    expect(refusal(() => extractToolMetadata(text, '.py', 't.py')).message).toContain(why);
  });

  it('refuses a constant assigned twice at module level', () => {
    const text = lines('__version__ = "1.0.0"', 'x = 1', '__version__ = "2.0.0"');
    expect(refusal(() => extractToolMetadata(text, '.py', 't.py')).message).toBe(
      'Cannot parse __version__ in t.py: __version__ is assigned twice (first on line 1) at line 3 column 1',
    );
  });

  it('refuses an unterminated string rather than guessing where the module level resumes', () => {
    refusal(() =>
      extractToolMetadata(lines('x = """never closed', '__version__ = "1"'), '.py', 't.py'),
    );
  });

  it('refuses a nesting bomb as unsafe content', () => {
    const text = `CONFIG = ${'['.repeat(200)}${']'.repeat(200)}\n`;
    refusal(() => extractToolMetadata(text, '.py', 'bomb.py'), 'PARSE_UNSAFE_CONTENT');
  });
});

describe('extractToolMetadata() for JavaScript and TypeScript', () => {
  it('reads a TS tool with export const CONFIG_SCHEMA = {...} as const', () => {
    const text = lines(
      `// ${SIGNATURE}`,
      '#!/usr/bin/env node',
      "import { run } from './lib.js';",
      '',
      'export const __version__ = "1.0.0";',
      'export const __tool_type__: string = "javascript";',
      "export const __executor_id__ = 'rye/core/runtimes/node_runtime';",
      'export const __category__ = `demo`;',
      'export const __tool_description__ = "Echo";',
      'export const CONFIG_SCHEMA = {',
      "  type: 'object',",
      '  properties: { name: { type: "string", default: "world" } }, // the greeting',
      '  required: ["name"],',
      '} as const;',
      'export const ENV_CONFIG: Readonly<Record<string, unknown>> = { env: { A: "1" } } satisfies object;',
      '',
      'run(CONFIG_SCHEMA);',
    );
    expect(extractToolMetadata(text, '.ts', 'demo/tool.ts')).toEqual({
      kind: 'tool',
      isEntryPoint: true,
      fields: {
        version: '1.0.0',
        tool_type: 'javascript',
        executor_id: 'rye/core/runtimes/node_runtime',
        category: 'demo',
        description: 'Echo',
        config_schema: {
          type: 'object',
          properties: { name: { type: 'string', default: 'world' } },
          required: ['name'],
        },
        env_config: { env: { A: '1' } },
      },
      extra: {},
    });
  });

  it('reads the same constants from .mjs, .cjs, .js and .mts files, whatever the case', () => {
    const text = lines('export const __version__ = "1.0.0"', 'console.log(1)');
    for (const ext of ['.mjs', '.cjs', '.js', '.MTS']) {
      expect(extractToolMetadata(text, ext, `t${ext}`).fields).toEqual({ version: '1.0.0' });
    }
  });

  it('ignores exports inside comments, strings, templates and after a regex holding a quote', () => {
    const text = lines(
      '// export const __version__ = "0.0.1";',
      '/* export const CONFIG = {} */',
      'const s = "export const __version__ = \'0.0.2\'";',
      'const t = `${`export const CONFIG = ${1}`} export const __category__ = "x"`;',
      'const r = /"/g; const d = 4 / 2 / 1;',
      'export const __version__ = "1.0.0";',
    );
    expect(extractToolMetadata(text, '.js', 't.js').fields).toEqual({ version: '1.0.0' });
  });

  it('keeps an explicit null executor_id as present with null', () => {
    const meta = extractToolMetadata('export const __executor_id__ = null;\n', '.ts', 't.ts');
    expect(Object.hasOwn(meta.fields, 'executor_id')).toBe(true);
    expect(meta.fields.executor_id).toBeNull();
  });

  it('treats a module without metadata exports as a dependency', () => {
    const text = lines('export const helper = () => 1;', 'export function other() {}');
    expect(extractToolMetadata(text, '.ts', 'lib.ts').isEntryPoint).toBe(false);
  });

  it.each([
    [
      'a call',
      'export const CONFIG = buildConfig();',
      'Cannot parse CONFIG in t.ts: calls are not literals',
    ],
    ['let', 'export let __version__ = "1.0.0";', 'must be declared with export const'],
    [
      'several declarators',
      'export const __version__ = "1", __category__ = "x";',
      'its own export const',
    ],
    ['a member access on the next line', 'export const CONFIG = {a: 1}\n.a;', 'unexpected "."'],
    ['an operator', 'export const __version__ = "1" + suffix;', 'unexpected "+"'],
    ['a substitution', 'export const __version__ = `${major}.0`;', 'template substitutions'],
    ['a spread', 'export const CONFIG = {...defaults};', 'spread'],
    ['no initialiser', 'export const CONFIG: Config;', 'is not initialised with a literal'],
  ])('refuses a recognised export bound by %s', (_label, line, why) => {
    expect(refusal(() => extractToolMetadata(`${line}\n`, '.ts', 't.ts')).message).toContain(why);
  });

  it('refuses a constant exported twice', () => {
    const text = lines('export const CONFIG = {};', 'export const CONFIG = {};');
    expect(refusal(() => extractToolMetadata(text, '.js', 't.js')).message).toContain(
      'CONFIG is exported twice (first on line 1) at line 2',
    );
  });

  it('refuses deeply nested template literals as unsafe content', () => {
    const text = `const x = ${'`${'.repeat(100)}${'}`'.repeat(100)};\n`;
    refusal(() => extractToolMetadata(text, '.js', 't.js'), 'PARSE_UNSAFE_CONTENT');
  });
});

describe('extractToolMetadata() for YAML and JSON', () => {
  const RUNTIME = lines(
    `# ${SIGNATURE}`,
    'version: "1.0.0"',
    'tool_type: runtime',
    'executor_id: rye/core/primitives/subprocess',
    'category: rye/core/runtimes/python',
    'description: "Python script runtime"',
    'env_config:',
    '  interpreter: {type: local_binary, binary: python}',
    'anchor:',
    '  enabled: true',
    '  mode: auto',
    '  markers_any: ["__init__.py", "pyproject.toml"]',
    'verify_deps:',
    '  enabled: true',
    '  extensions: [".py", ".yaml"]',
    'config:',
    '  command: "${RYE_PYTHON}"',
    '  args: ["{tool_path}"]',
  );

  it('reads a YAML runtime, putting anchor and verify_deps in extra', () => {
    const meta = extractToolMetadata(RUNTIME, '.yaml', 'rye/core/runtimes/python/script.yaml');
    expect(meta.isEntryPoint).toBe(true);
    expect(meta.fields).toEqual({
      version: '1.0.0',
      tool_type: 'runtime',
      executor_id: 'rye/core/primitives/subprocess',
      category: 'rye/core/runtimes/python',
      description: 'Python script runtime',
      env_config: { interpreter: { type: 'local_binary', binary: 'python' } },
      config: { command: '${RYE_PYTHON}', args: ['{tool_path}'] },
    });
    expect(meta.extra).toEqual({
      anchor: { enabled: true, mode: 'auto', markers_any: ['__init__.py', 'pyproject.toml'] },
      verify_deps: { enabled: true, extensions: ['.py', '.yaml'] },
    });
  });

  it('keeps a YAML executor_id: null as present with null', () => {
    const meta = extractToolMetadata('version: "1.0.0"\nexecutor_id: null\n', '.yml', 'p.yml');
    expect(Object.hasOwn(meta.fields, 'executor_id')).toBe(true);
    expect(meta.fields.executor_id).toBeNull();
  });

  it('treats a YAML document that is not a mapping as a dependency', () => {
    expect(extractToolMetadata('- a\n- b\n', '.yaml', 'list.yaml').isEntryPoint).toBe(false);
    expect(extractToolMetadata('# only a comment\n', '.yaml', 'empty.yaml').fields).toEqual({});
  });

  it('refuses YAML with a syntax error', () => {
    refusal(() => extractToolMetadata('version: "1.0.0\n', '.yaml', 'bad.yaml'));
  });

  it('refuses deeply nested and self-referencing YAML as unsafe content', () => {
    const deep = `config: ${'['.repeat(100)}${']'.repeat(100)}\n`;
    refusal(() => extractToolMetadata(deep, '.yaml', 'deep.yaml'), 'PARSE_UNSAFE_CONTENT');
    const cyclic = 'config: &loop\n  self: *loop\n';
    refusal(() => extractToolMetadata(cyclic, '.yaml', 'cyclic.yaml'), 'PARSE_UNSAFE_CONTENT');
  });

  it('reads JSON keys, dropping _signature and keeping other keys in extra', () => {
    const text =
      '{"_signature": "rye:signed:…", "version": "1.0.0", "executor_id": null,' +
      ' "anchor": {"enabled": false}, "__proto__": {"polluted": true}}';
    const meta = extractToolMetadata(text, '.json', 'tool.json');
    expect(meta.fields).toEqual({ version: '1.0.0', executor_id: null });
    expect(Object.keys(meta.extra)).toEqual(['anchor', '__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('treats a JSON document that is not an object as a dependency', () => {
    expect(extractToolMetadata('[1, 2]', '.json', 'data.json')).toEqual({
      kind: 'tool',
      isEntryPoint: false,
      fields: {},
      extra: {},
    });
  });

  it('refuses malformed JSON, saying where', () => {
    const error = refusal(() => extractToolMetadata('{\n  "version": }', '.json', 'bad.json'));
    expect(error.message).toMatch(/^Cannot parse JSON in bad\.json: [^\n]+$/);
    const truncated = refusal(() => extractToolMetadata('{"a": [1, 2', '.json', 'cut.json'));
    expect(truncated.message).toMatch(/^Cannot parse JSON in cut\.json: [^\n]+$/);
  });
});

describe('extractToolMetadata() for shell scripts and other files', () => {
  it('reads metadata lines from the leading comment block of a shell tool', () => {
    const text = lines(
      '#!/bin/bash',
      `# ${SIGNATURE}`,
      '# Greets someone.',
      '# __version__ = "1.0.0"',
      '# __tool_type__ = "shell"',
      "#__executor_id__='rye/core/runtimes/shell_runtime'  # the runtime",
      '# CONFIG_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}}',
      'echo "hello $1"',
      '# __category__ = "after the code"',
    );
    const meta = extractToolMetadata(text, '.sh', 'greet.sh');
    expect(meta.isEntryPoint).toBe(true);
    expect(meta.fields).toEqual({
      version: '1.0.0',
      tool_type: 'shell',
      executor_id: 'rye/core/runtimes/shell_runtime',
      config_schema: { type: 'object', properties: { name: { type: 'string' } } },
    });
  });

  it('treats a shell script without metadata lines as a dependency', () => {
    const text = lines('#!/bin/bash', `# ${SIGNATURE}`, '# demo', 'echo "$1"');
    expect(extractToolMetadata(text, '.bash', 'run.bash').isEntryPoint).toBe(false);
  });

  it('refuses a shell metadata value that is not a one-line literal', () => {
    const text = lines('#!/bin/bash', '# CONFIG = {', '#   "a": 1', '# }');
    expect(refusal(() => extractToolMetadata(text, '.sh', 'x.sh')).message).toContain(
      'Cannot parse CONFIG in x.sh',
    );
    const shell = lines('# __version__ = $(git describe)');
    refusal(() => extractToolMetadata(shell, '.sh', 'y.sh'));
  });

  it('refuses a shell metadata line repeated', () => {
    const text = lines('# __version__ = "1"', '# __version__ = "2"');
    expect(refusal(() => extractToolMetadata(text, '.sh', 'x.sh')).message).toContain(
      'assigned twice',
    );
  });

  it('reads no metadata from TOML or unknown extensions', () => {
    const toml = extractToolMetadata('version = "1.0.0"\n', '.toml', 'conf.toml');
    expect(toml).toEqual({ kind: 'tool', isEntryPoint: false, fields: {}, extra: {} });
    expect(extractToolMetadata('__version__ = "1"', '.txt', 'x.txt').isEntryPoint).toBe(false);
  });

  it('ignores a leading byte order mark', () => {
    const meta = extractToolMetadata('\uFEFF__version__ = "1.0.0"\n', '.py', 'bom.py');
    expect(meta.fields).toEqual({ version: '1.0.0' });
  });
});

describe('extractToolMetadata() entry points', () => {
  it('treats a package.json with version and description as a dependency, not a tool', () => {
    const meta = extractToolMetadata(
      '{"name": "x", "version": "1.0.0", "description": "pkg", "type": "module"}',
      '.json',
      'package.json',
    );
    expect(meta.isEntryPoint).toBe(false);
  });

  it('treats a Python package __init__.py with __version__ as a dependency', () => {
    expect(extractToolMetadata('__version__ = "2.0.0"\n', '.py', '__init__.py').isEntryPoint).toBe(
      false,
    );
  });

  it('treats a file declaring executor_id (even null) as an entry point', () => {
    expect(extractToolMetadata('executor_id: null\n', '.yaml', 'p.yaml').isEntryPoint).toBe(true);
  });
});

describe('extractToolMetadata() on hostile 1 MB files', () => {
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

  it('refuses a YAML tool of 1 MB of distinct keys (once a quadratic duplicate-key check)', () => {
    const text = `executor_id: rye/core/primitives/subprocess\n${grow((i) => `k${i}: 1\n`)}`;
    refusal(() => extractToolMetadata(text, '.yaml', 'hostile.yaml'), 'PARSE_UNSAFE_CONTENT');
  });

  it('refuses a YAML tool nested 500,000 deep before the composer recurses', () => {
    const text = `config: ${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}\n`;
    const error = refusal(
      () => extractToolMetadata(text, '.yml', 'deep.yml'),
      'PARSE_UNSAFE_CONTENT',
    );
    expect(error.message).toContain('nested deeper than');
  });

  it('reads a Python module of 1 MB of \\N{ in an f-string (once a search to the end per escape)', () => {
    const text = `x = f"""${grow(() => '\\N{')}"""\n__version__ = "1.0.0"\n`;
    expect(extractToolMetadata(text, '.py', 'hostile.py').fields).toEqual({ version: '1.0.0' });
  });

  it('reads 1 MB of Python, JavaScript and shell that hold no constants', () => {
    const py = grow((i) => `v${i} = [1, {"a": (2,)}]  # c\n`);
    const js = grow((i) => `const v${i} = a / b / [c] / d; /* c */ // x\n`);
    const sh = grow((i) => `# comment ${i} = x\n`);
    expect(extractToolMetadata(py, '.py', 'a.py').fields).toEqual({});
    expect(extractToolMetadata(js, '.mjs', 'a.mjs').fields).toEqual({});
    expect(extractToolMetadata(sh, '.sh', 'a.sh').fields).toEqual({});
  });

  it('refuses a 1 MB literal, a 1 MB nesting and 1 MB of nested templates', () => {
    const long = `__version__ = "${'a'.repeat(MB)}"\n`;
    refusal(() => extractToolMetadata(long, '.py', 'long.py'));
    const deep = `CONFIG = ${'['.repeat(MB)}`;
    refusal(() => extractToolMetadata(deep, '.py', 'deep.py'), 'PARSE_UNSAFE_CONTENT');
    const templates = `const x = ${'`${'.repeat(MB / 3)}`;
    refusal(() => extractToolMetadata(templates, '.js', 'tpl.js'), 'PARSE_UNSAFE_CONTENT');
  });

  it('refuses JSON nested 500,000 deep before any recursion, and JSON duplicate keys', () => {
    const deep = `{"config": ${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}}`;
    refusal(() => extractToolMetadata(deep, '.json', 'deep.json'), 'PARSE_UNSAFE_CONTENT');
    const twice = '{"executor_id": "a/b", "executor_id": null}';
    refusal(() => extractToolMetadata(twice, '.json', 'twice.json'), 'PARSE_UNSAFE_CONTENT');
  });

  it('reads a 1 MB JSON object of 60,000 keys', () => {
    const text = `{"version": "1.0.0", ${grow((i) => `"k${i}": ${i}, `)}"z": 0}`;
    const meta = extractToolMetadata(text, '.json', 'big.json');
    expect(meta.fields).toEqual({ version: '1.0.0' });
    expect(Object.keys(meta.extra).length).toBeGreaterThan(50_000);
  });
});
