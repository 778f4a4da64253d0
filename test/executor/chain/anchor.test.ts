import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  anchorApplies,
  anchorContext,
  anchorCwd,
  applyAnchorEnv,
  findAnchorConfig,
  findVerifyDepsConfig,
  pathExistsOnDisk,
  resolveAnchorPath,
} from '../../../src/executor/chain/anchor.js';
import type {
  AnchorConfig,
  ChainElement,
  TemplateVars,
  VerifyDepsConfig,
} from '../../../src/executor/types.js';

const PYTHON_ANCHOR: AnchorConfig = {
  enabled: true,
  mode: 'auto',
  markersAny: ['__init__.py', 'pyproject.toml'],
  root: 'tool_dir',
  lib: 'lib/python',
  cwd: null,
  envPaths: { PYTHONPATH: { prepend: ['{anchor_path}', '{runtime_lib}'], append: [] } },
};

const DEPS: VerifyDepsConfig = {
  enabled: true,
  scope: 'anchor',
  recursive: true,
  extensions: ['.py'],
  excludeDirs: [],
};

function element(path: string, extra: Partial<ChainElement> = {}): ChainElement {
  return {
    itemId: path,
    space: 'project',
    path,
    extension: '.py',
    toolType: null,
    executorId: null,
    version: null,
    integrity: '',
    envConfig: null,
    config: null,
    configSchema: null,
    anchor: null,
    verifyDeps: null,
    ...extra,
  };
}

const TOOL = '/p/.ai/tools/rye/agent/threads/thread_directive.py';
const RUNTIME = '/sys/.ai/tools/rye/core/runtimes/python_script_runtime.yaml';
const PRIMITIVE = '/sys/.ai/tools/rye/core/primitives/subprocess.yaml';
const INPUT = { projectPath: '/p', userSpace: '/u', systemSpace: '/sys', paramsJson: '{"a":1}' };

function vars(overrides: Readonly<Record<string, string>> = {}): TemplateVars {
  const chain = [element(TOOL), element(RUNTIME, { anchor: PYTHON_ANCHOR }), element(PRIMITIVE)];
  return { ...anchorContext(chain, INPUT), ...overrides };
}

describe('findAnchorConfig() / findVerifyDepsConfig()', () => {
  it('take the first runtime from the tool side that declares a section', () => {
    const never = { ...PYTHON_ANCHOR, mode: 'never' as const };
    const chain = [
      element(TOOL),
      element('/p/wrapper.yaml', { anchor: never }),
      element(RUNTIME, { anchor: PYTHON_ANCHOR, verifyDeps: DEPS }),
      element(PRIMITIVE),
    ];
    expect(findAnchorConfig(chain)).toBe(never);
    expect(findVerifyDepsConfig(chain)).toBe(DEPS);
  });

  it('never let the tool entry point declare its own anchor or verify_deps', () => {
    const off = { ...DEPS, enabled: false };
    const chain = [
      element(TOOL, { anchor: { ...PYTHON_ANCHOR, enabled: false }, verifyDeps: off }),
      element(RUNTIME, { anchor: PYTHON_ANCHOR, verifyDeps: DEPS }),
    ];
    expect(findAnchorConfig(chain)).toBe(PYTHON_ANCHOR);
    expect(findVerifyDepsConfig(chain)).toBe(DEPS);
  });

  it('return null when no runtime declares one', () => {
    expect(findAnchorConfig([element(TOOL), element(PRIMITIVE)])).toBeNull();
    expect(findVerifyDepsConfig([element(TOOL), element(PRIMITIVE)])).toBeNull();
  });
});

describe('anchorContext()', () => {
  it('computes the seed variables, with runtime_lib beside the declaring runtime YAML', () => {
    expect(vars()).toEqual({
      tool_path: TOOL,
      tool_dir: '/p/.ai/tools/rye/agent/threads',
      tool_parent: '/p/.ai/tools/rye/agent',
      anchor_path: '/p/.ai/tools/rye/agent/threads',
      runtime_lib: join('/sys/.ai/tools/rye/core/runtimes', 'lib/python'),
      project_path: '/p',
      user_space: '/u',
      system_space: '/sys',
      params_json: '{"a":1}',
    });
  });

  it('leaves runtime_lib empty when the declaring runtime has no lib', () => {
    const chain = [element(TOOL), element(RUNTIME, { anchor: { ...PYTHON_ANCHOR, lib: null } })];
    expect(anchorContext(chain, INPUT).runtime_lib).toBe('');
  });
});

describe('anchorApplies()', () => {
  const dir = '/p/tool';
  const none = (): boolean => false;
  const all = (): boolean => true;

  it('applies in always mode without looking for markers', () => {
    expect(anchorApplies({ ...PYTHON_ANCHOR, mode: 'always' }, dir, none)).toBe(true);
  });

  it('never applies in never mode or when not enabled', () => {
    expect(anchorApplies({ ...PYTHON_ANCHOR, mode: 'never' }, dir, all)).toBe(false);
    expect(anchorApplies({ ...PYTHON_ANCHOR, mode: 'always', enabled: false }, dir, all)).toBe(
      false,
    );
  });

  it('applies in auto mode only when a marker sits directly in the tool folder', () => {
    const seen: string[] = [];
    const probe = (path: string): boolean => {
      seen.push(path);
      return path === join(dir, 'pyproject.toml');
    };
    expect(anchorApplies(PYTHON_ANCHOR, dir, probe)).toBe(true);
    expect(seen).toEqual([join(dir, '__init__.py'), join(dir, 'pyproject.toml')]);
    expect(anchorApplies(PYTHON_ANCHOR, dir, none)).toBe(false);
    expect(anchorApplies({ ...PYTHON_ANCHOR, markersAny: [] }, dir, all)).toBe(false);
  });

  it('probes the real file system by default', () => {
    const root = mkdtempSync(join(tmpdir(), 'rye-anchor-'));
    try {
      expect(anchorApplies(PYTHON_ANCHOR, root)).toBe(false);
      writeFileSync(join(root, '__init__.py'), '');
      expect(anchorApplies(PYTHON_ANCHOR, root)).toBe(true);
      expect(pathExistsOnDisk(join(root, 'missing'))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('resolveAnchorPath()', () => {
  it('maps each root to its variable', () => {
    const v = vars();
    expect(resolveAnchorPath(PYTHON_ANCHOR, v)).toBe(v.tool_dir);
    expect(resolveAnchorPath({ ...PYTHON_ANCHOR, root: 'tool_parent' }, v)).toBe(v.tool_parent);
    expect(resolveAnchorPath({ ...PYTHON_ANCHOR, root: 'project_path' }, v)).toBe('/p');
  });
});

describe('applyAnchorEnv()', () => {
  const join2 = (...parts: string[]): string => parts.join(delimiter);

  it('prepends in the order listed, keeps existing parts, appends, with path.delimiter', () => {
    const config: AnchorConfig = {
      ...PYTHON_ANCHOR,
      envPaths: { PYTHONPATH: { prepend: ['{anchor_path}', '{runtime_lib}'], append: ['/tail'] } },
    };
    const v = vars();
    const env = { PYTHONPATH: join2('/site', '/other'), HOME: '/h' };
    const out = applyAnchorEnv(config, env, v);
    expect(out).toEqual({
      PYTHONPATH: join2(v.anchor_path, v.runtime_lib, '/site', '/other', '/tail'),
      HOME: '/h',
    });
    expect(env.PYTHONPATH).toBe(join2('/site', '/other'));
  });

  it('de-duplicates keeping the first occurrence and drops empty parts', () => {
    const v = vars({ anchor_path: '/a' });
    const config: AnchorConfig = {
      ...PYTHON_ANCHOR,
      envPaths: {
        NODE_PATH: {
          prepend: ['{anchor_path}', '{anchor_path}/node_modules'],
          append: ['/a', '/x'],
        },
      },
    };
    const env = { NODE_PATH: join2('', '/x', '/a', '', '/x') };
    expect(applyAnchorEnv(config, env, v).NODE_PATH).toBe(join2('/a', '/a/node_modules', '/x'));
  });

  it('creates a missing variable and never reads process.env', () => {
    process.env['RYE_TEST_ANCHOR_VAR'] = '/from-process';
    const config: AnchorConfig = {
      ...PYTHON_ANCHOR,
      envPaths: { RYE_TEST_ANCHOR_VAR: { prepend: ['{tool_dir}'], append: [] } },
    };
    const v = vars();
    expect(applyAnchorEnv(config, {}, v)).toEqual({ RYE_TEST_ANCHOR_VAR: v.tool_dir });
    delete process.env['RYE_TEST_ANCHOR_VAR'];
  });

  it('drops an entry built on an empty variable instead of adding a root-relative path', () => {
    const config: AnchorConfig = {
      ...PYTHON_ANCHOR,
      envPaths: { PATH: { prepend: ['{runtime_lib}/bin', '{anchor_path}/bin'], append: [] } },
    };
    const v = vars({ runtime_lib: '', anchor_path: '/a' });
    expect(applyAnchorEnv(config, { PATH: '/usr/bin' }, v).PATH).toBe(join2('/a/bin', '/usr/bin'));
  });

  it('leaves unknown template names as written', () => {
    const config: AnchorConfig = {
      ...PYTHON_ANCHOR,
      envPaths: { P: { prepend: ['{nope}/x'], append: [] } },
    };
    expect(applyAnchorEnv(config, {}, vars()).P).toBe('{nope}/x');
  });
});

describe('anchorCwd()', () => {
  it('renders the cwd template, or returns null when none is set', () => {
    const v = vars({ anchor_path: '/a' });
    expect(anchorCwd({ ...PYTHON_ANCHOR, cwd: '{anchor_path}' }, v)).toBe('/a');
    expect(anchorCwd(PYTHON_ANCHOR, v)).toBeNull();
  });
});
