import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isRyeError, type RyeError } from '../../../src/errors/index.js';
import {
  DEFAULT_EXCLUDE_DIRS,
  parseAnchorConfig,
  parseVerifyDepsConfig,
} from '../../../src/executor/chain/runtime-config.js';

const SOURCE = '/sys/.ai/tools/rye/core/runtimes/python_script_runtime.yaml';

/** The seed's python_script_runtime.yaml sections. */
const PYTHON_RUNTIME = parse(`
anchor:
  enabled: true
  mode: auto
  markers_any: ["__init__.py", "pyproject.toml"]
  root: tool_dir
  lib: lib/python
  env_paths:
    PYTHONPATH:
      prepend: ["{anchor_path}", "{runtime_lib}"]

verify_deps:
  enabled: true
  scope: anchor
  recursive: true
  extensions: [".py", ".yaml", ".yml", ".json"]
  exclude_dirs: ["__pycache__", ".venv", "node_modules", ".git"]
`) as { anchor: unknown; verify_deps: unknown };

function issuesOf(fn: () => unknown): string[] {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  if (!isRyeError(caught)) throw new Error('expected a RyeError');
  const error: RyeError = caught;
  expect(error.code).toBe('EXECUTOR_CONFIG_INVALID');
  expect(error.details['source']).toBe(SOURCE);
  return (error.details['issues'] as { field: string }[]).map((i) => i.field);
}

const anchorIssues = (raw: unknown): string[] => issuesOf(() => parseAnchorConfig(raw, SOURCE));
const depsIssues = (raw: unknown): string[] => issuesOf(() => parseVerifyDepsConfig(raw, SOURCE));

describe('parseAnchorConfig()', () => {
  it("parses the seed's python runtime section", () => {
    expect(parseAnchorConfig(PYTHON_RUNTIME.anchor, SOURCE)).toEqual({
      enabled: true,
      mode: 'auto',
      markersAny: ['__init__.py', 'pyproject.toml'],
      root: 'tool_dir',
      lib: 'lib/python',
      cwd: null,
      envPaths: { PYTHONPATH: { prepend: ['{anchor_path}', '{runtime_lib}'], append: [] } },
    });
  });

  it('returns null for an absent section and applies the seed defaults to an empty one', () => {
    expect(parseAnchorConfig(undefined, SOURCE)).toBeNull();
    expect(parseAnchorConfig(null, SOURCE)).toBeNull();
    expect(parseAnchorConfig({}, SOURCE)).toEqual({
      enabled: false,
      mode: 'auto',
      markersAny: [],
      root: 'tool_dir',
      lib: null,
      cwd: null,
      envPaths: {},
    });
  });

  it('accepts null-prototype objects', () => {
    const raw = Object.assign(Object.create(null) as object, { enabled: true, mode: 'always' });
    expect(parseAnchorConfig(raw, SOURCE)).toMatchObject({ enabled: true, mode: 'always' });
  });

  it('rejects a section that is not a mapping', () => {
    expect(anchorIssues(true)).toEqual(['anchor']);
    expect(anchorIssues(['x'])).toEqual(['anchor']);
  });

  it('rejects an unknown mode, root or a non-boolean enabled', () => {
    expect(anchorIssues({ mode: 'sometimes' })).toEqual(['anchor.mode']);
    expect(anchorIssues({ root: 'home' })).toEqual(['anchor.root']);
    expect(anchorIssues({ enabled: 'yes' })).toEqual(['anchor.enabled']);
  });

  it('rejects markers that are not plain names', () => {
    expect(anchorIssues({ markers_any: '__init__.py' })).toEqual(['anchor.markers_any']);
    expect(anchorIssues({ markers_any: [1, 'ok'] })).toEqual(['anchor.markers_any[0]']);
    expect(anchorIssues({ markers_any: ['../x', 'a/b'] })).toEqual([
      'anchor.markers_any',
      'anchor.markers_any',
    ]);
  });

  it('rejects a lib that is absolute, climbs with .. or is not a string', () => {
    expect(anchorIssues({ lib: '/usr/lib/python' })).toEqual(['anchor.lib']);
    expect(anchorIssues({ lib: 'lib/../../x' })).toEqual(['anchor.lib']);
    expect(anchorIssues({ lib: '..\\x' })).toEqual(['anchor.lib']);
    expect(anchorIssues({ lib: 3 })).toEqual(['anchor.lib']);
  });

  it('reads lib_package, a package name the lib is mounted as; refuses paths, odd names and no lib', () => {
    expect(parseAnchorConfig({ lib: 'lib/node', lib_package: '@rye/runtime' }, 'x')).toMatchObject({
      lib: 'lib/node',
      libPackage: '@rye/runtime',
    });
    expect(parseAnchorConfig({ lib: 'lib/node' }, 'x')).not.toHaveProperty('libPackage');
    for (const bad of ['../x', '@rye/../x', '@rye/a/b', '/abs', '.', '..', 'A', '', 3, '@/x'])
      expect(anchorIssues({ lib: 'lib/node', lib_package: bad }), String(bad)).toEqual([
        'anchor.lib_package',
      ]);
    expect(anchorIssues({ lib_package: '@rye/runtime' })).toEqual(['anchor.lib_package']);
  });

  it('rejects a cwd that is not a non-empty string', () => {
    expect(anchorIssues({ cwd: 7 })).toEqual(['anchor.cwd']);
    expect(anchorIssues({ cwd: '' })).toEqual(['anchor.cwd']);
  });

  it('rejects env_paths that are not {VAR: {prepend?: string[], append?: string[]}}', () => {
    expect(anchorIssues({ env_paths: ['PYTHONPATH'] })).toEqual(['anchor.env_paths']);
    expect(anchorIssues({ env_paths: { PYTHONPATH: '{anchor_path}' } })).toEqual([
      'anchor.env_paths.PYTHONPATH',
    ]);
    expect(anchorIssues({ env_paths: { PYTHONPATH: { prepend: '{anchor_path}' } } })).toEqual([
      'anchor.env_paths.PYTHONPATH.prepend',
    ]);
    expect(anchorIssues({ env_paths: { PATH: { append: [null] } } })).toEqual([
      'anchor.env_paths.PATH.append[0]',
    ]);
    expect(anchorIssues({ env_paths: { PATH: { prepand: ['x'] } } })).toEqual([
      'anchor.env_paths.PATH.prepand',
    ]);
    expect(anchorIssues({ env_paths: { 'BAD-NAME': { prepend: [] } } })).toEqual([
      'anchor.env_paths.BAD-NAME',
    ]);
  });

  it('rejects unknown keys, so a typo cannot pass silently', () => {
    expect(anchorIssues({ enabled: true, markers: ['__init__.py'] })).toEqual(['anchor.markers']);
  });

  it('collects every issue before failing once', () => {
    const issues = anchorIssues({ mode: 'x', root: 'y', lib: '/z', extra: 1 });
    expect(issues.sort()).toEqual(['anchor.extra', 'anchor.lib', 'anchor.mode', 'anchor.root']);
  });
});

describe('parseVerifyDepsConfig()', () => {
  it("parses the seed's python runtime section", () => {
    expect(parseVerifyDepsConfig(PYTHON_RUNTIME.verify_deps, SOURCE)).toEqual({
      enabled: true,
      scope: 'anchor',
      recursive: true,
      extensions: ['.py', '.yaml', '.yml', '.json'],
      excludeDirs: ['__pycache__', '.venv', 'node_modules', '.git'],
    });
  });

  it('returns null for an absent section and applies the seed defaults to an empty one', () => {
    expect(parseVerifyDepsConfig(null, SOURCE)).toBeNull();
    expect(parseVerifyDepsConfig({}, SOURCE)).toEqual({
      enabled: false,
      scope: 'anchor',
      recursive: true,
      extensions: [],
      excludeDirs: DEFAULT_EXCLUDE_DIRS,
    });
    expect(DEFAULT_EXCLUDE_DIRS).toEqual(['__pycache__', '.venv', 'node_modules', '.git']);
  });

  it('rejects an unknown scope and non-boolean enabled or recursive', () => {
    expect(depsIssues({ scope: 'everything' })).toEqual(['verify_deps.scope']);
    expect(depsIssues({ enabled: 1 })).toEqual(['verify_deps.enabled']);
    expect(depsIssues({ recursive: 'no' })).toEqual(['verify_deps.recursive']);
  });

  it('rejects extensions without a leading dot or that are not strings', () => {
    expect(depsIssues({ extensions: ['py'] })).toEqual(['verify_deps.extensions']);
    expect(depsIssues({ extensions: ['.tar.gz'] })).toEqual(['verify_deps.extensions']);
    expect(depsIssues({ extensions: [false] })).toEqual(['verify_deps.extensions[0]']);
    expect(depsIssues({ extensions: '.py' })).toEqual(['verify_deps.extensions']);
  });

  it('rejects an enabled walk with no extensions, which would verify nothing', () => {
    expect(depsIssues({ enabled: true })).toEqual(['verify_deps.extensions']);
    expect(parseVerifyDepsConfig({ enabled: true, scope: 'tool_file' }, SOURCE)).toMatchObject({
      enabled: true,
      scope: 'tool_file',
    });
  });

  it('rejects exclude_dirs entries that are paths or not strings', () => {
    expect(depsIssues({ exclude_dirs: ['a/b'] })).toEqual(['verify_deps.exclude_dirs']);
    expect(depsIssues({ exclude_dirs: [['x']] })).toEqual(['verify_deps.exclude_dirs[0]']);
  });

  it('rejects unknown keys, so a typo cannot pass silently', () => {
    expect(depsIssues({ enabled: false, exclude_dir: ['.git'] })).toEqual([
      'verify_deps.exclude_dir',
    ]);
  });

  it('names the file and lists every issue in the message', () => {
    let message = '';
    try {
      parseVerifyDepsConfig({ scope: 'x', extensions: ['py'] }, SOURCE);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /^Cannot use the verify_deps section of .*python_script_runtime\.yaml: /,
    );
    expect(message).toContain(
      'verify_deps.scope must be one of anchor, tool_dir, tool_siblings, tool_file (got "x")',
    );
    expect(message).toContain('verify_deps.extensions entries must start with a dot');
  });
});
