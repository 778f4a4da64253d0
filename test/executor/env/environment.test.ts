import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveEnvironment } from '../../../src/executor/env/environment.js';
import type { EnvironmentInput } from '../../../src/executor/env/environment.js';
import type { ChainElement, EnvConfig, InterpreterConfig } from '../../../src/executor/types.js';

const created: string[] = [];
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rye-env-'));
  created.push(dir);
  return dir;
}

/** An env_config with the given parts (no interpreter, env or dotenv names by default). */
function cfg(parts: Partial<EnvConfig>): EnvConfig {
  return { interpreter: null, env: {}, dotenv: [], ...parts };
}

function element(itemId: string, envConfig: EnvConfig | null): ChainElement {
  return {
    itemId,
    space: 'project',
    path: `/p/.ai/tools/${itemId}.yaml`,
    extension: '.yaml',
    toolType: null,
    executorId: null,
    version: '1.0.0',
    integrity: 'sha256:00',
    envConfig,
    config: null,
    configSchema: null,
    anchor: null,
    verifyDeps: null,
  };
}

function venvPython(venvPath = '.venv'): InterpreterConfig {
  return {
    type: 'venv_python',
    var: 'RYE_PYTHON',
    binary: null,
    candidates: [],
    searchPaths: [],
    searchRoots: [],
    venvPath,
    // Absolute, so no PATH lookup is involved (a bare fallback is looked up: interpreter.test.ts).
    fallback: '/opt/py/bin/python3',
  };
}

function input(chain: ChainElement[], overrides: Partial<EnvironmentInput> = {}): EnvironmentInput {
  return {
    chain,
    projectPath: tempProject(),
    baseEnv: {},
    dotenv: null,
    vars: {},
    ...overrides,
  };
}

const primitive = element('rye/core/primitives/subprocess', null);

describe('resolveEnvironment()', () => {
  it("lets the tool's own env override its runtime's", async () => {
    const tool = element('my/tool', cfg({ env: { MODE: 'tool', TOOL_ONLY: '1' } }));
    const runtime = element(
      'rye/core/runtimes/python/script',
      cfg({ env: { MODE: 'runtime', RUNTIME_ONLY: '1' } }),
    );
    const { env } = await resolveEnvironment(input([tool, runtime, primitive]));
    expect({ ...env }).toEqual({ MODE: 'tool', TOOL_ONLY: '1', RUNTIME_ONLY: '1' });
  });

  it('expands ${VAR} and ${VAR:-default} against the env built so far', async () => {
    const runtime = element(
      'runtime',
      cfg({
        interpreter: venvPython(),
        env: { PROJECT_VENV_PYTHON: '${RYE_PYTHON}', LEVEL: '${LOG_LEVEL:-info}', BASE: '/b' },
      }),
    );
    const tool = element('tool', cfg({ env: { DATA: '${BASE}/data:${HOME}' } }));
    const result = await resolveEnvironment(
      input([tool, runtime, primitive], { baseEnv: { HOME: '/h' } }),
    );
    expect(result.env).toMatchObject({
      RYE_PYTHON: '/opt/py/bin/python3',
      PROJECT_VENV_PYTHON: '/opt/py/bin/python3',
      LEVEL: 'info',
      DATA: '/b/data:/h',
    });
  });

  it('never re-expands an expanded value', async () => {
    const tool = element('tool', cfg({ env: { A: '${SNEAKY}', B: '{tool_path}' } }));
    const { env } = await resolveEnvironment(
      input([tool, primitive], {
        baseEnv: { SNEAKY: '${HOME}', HOME: '/h' },
        vars: { tool_path: '/t' },
      }),
    );
    expect(env).toMatchObject({ A: '${HOME}', B: '{tool_path}' });
  });

  it('adds only the signed .env names the chain declares, and the real environment wins', async () => {
    const tool = element('tool', cfg({ dotenv: ['API_KEY', 'EMPTY', 'GONE'] }));
    const runtime = element('runtime', cfg({ dotenv: ['NEW', 'ABSENT'] }));
    const result = await resolveEnvironment(
      input([tool, runtime, primitive], {
        baseEnv: { API_KEY: 'real', EMPTY: '', GONE: undefined },
        dotenv: {
          API_KEY: 'from-file',
          EMPTY: 'from-file',
          GONE: 'from-file',
          NEW: '1',
          UNDECLARED: 'x',
        },
      }),
    );
    expect({ ...result.env }).toEqual({ API_KEY: 'real', EMPTY: '', GONE: 'from-file', NEW: '1' });
    expect(result.dotenvApplied).toEqual(['GONE', 'NEW']);
  });

  it('takes nothing from .env when there is no signed one', async () => {
    const tool = element('tool', cfg({ dotenv: ['API_KEY'] }));
    const result = await resolveEnvironment(input([tool, primitive], { dotenv: null }));
    expect({ ...result.env }).toEqual({});
    expect(result.dotenvApplied).toEqual([]);
  });

  it('never applies a loader name, even from a declaration that bypassed the parser', async () => {
    // parseEnvConfig refuses these; a hand-built EnvConfig must still not let them through.
    const tool = element('tool', cfg({ dotenv: ['NODE_OPTIONS', 'PATH', 'ld_preload', 'OK'] }));
    const result = await resolveEnvironment(
      input([tool, primitive], {
        dotenv: { NODE_OPTIONS: '--require ./evil.cjs', PATH: '.', ld_preload: 'x', OK: '1' },
      }),
    );
    expect({ ...result.env }).toEqual({ OK: '1' });
  });

  it('refuses an env map that builds a loader name from a .env value, even indirectly', async () => {
    const tool = element('tool', cfg({ dotenv: ['EXTRA'] }));
    const direct = element('runtime', cfg({ env: { PYTHONPATH: '${EXTRA:-/safe}' } }));
    const indirect = element('runtime', cfg({ env: { A: 'x${EXTRA}', NODE_OPTIONS: '${A}' } }));
    for (const runtime of [direct, indirect]) {
      const error = await resolveEnvironment(
        input([tool, runtime, primitive], { dotenv: { EXTRA: '/project/evil' } }),
      ).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'EXECUTOR_DOTENV_REFUSED',
        details: { item_id: 'runtime' },
      });
    }
    // The same maps are fine when the value is the user's own.
    const { env } = await resolveEnvironment(
      input([tool, indirect, primitive], { baseEnv: { EXTRA: '/mine' }, dotenv: { EXTRA: '/x' } }),
    );
    expect(env['NODE_OPTIONS']).toBe('x/mine');
  });

  it('chooses the interpreter from signed config and the real environment only', async () => {
    const runtime = element('runtime', cfg({ interpreter: venvPython() }));
    const tool = element('tool', cfg({ dotenv: ['RYE_PYTHON'] }));
    const result = await resolveEnvironment(
      input([tool, runtime, primitive], { dotenv: { RYE_PYTHON: '/evil/python' } }),
    );
    expect(result.env['RYE_PYTHON']).toBe('/opt/py/bin/python3');
    expect(result.interpreter?.source).toBe('fallback');
  });

  it('lets a runtime env reference a declared .env value', async () => {
    const runtime = element(
      'runtime',
      cfg({ env: { URL: '${HOST:-localhost}:80' }, dotenv: ['HOST'] }),
    );
    const { env } = await resolveEnvironment(
      input([runtime, primitive], { dotenv: { HOST: 'db' } }),
    );
    expect(env['URL']).toBe('db:80');
  });

  it('keeps the interpreter the user set in the environment', async () => {
    const runtime = element('runtime', cfg({ interpreter: venvPython() }));
    const result = await resolveEnvironment(
      input([element('tool', null), runtime, primitive], { baseEnv: { RYE_PYTHON: '/my/python' } }),
    );
    expect(result.env['RYE_PYTHON']).toBe('/my/python');
    expect(result.interpreter).toEqual({
      value: '/my/python',
      source: 'env',
      path: null,
      var: 'RYE_PYTHON',
      declaredBy: 'runtime',
    });
  });

  it.skipIf(process.platform === 'win32')(
    'sets the interpreter variable to the venv python found (venv_python runtimes only)',
    async () => {
      const project = tempProject();
      const python = join(project, '.venv/bin/python');
      mkdirSync(join(project, '.venv/bin'), { recursive: true });
      writeFileSync(python, '#!/bin/sh\n');
      chmodSync(python, 0o755);
      const runtime = element('runtime', cfg({ interpreter: venvPython() }));
      const result = await resolveEnvironment(
        input([element('tool', null), runtime, primitive], { projectPath: project }),
      );
      expect(result.env['RYE_PYTHON']).toBe(python);
      expect(result.interpreter?.source).toBe('found');
    },
  );

  it("uses the tool's own interpreter over its runtime's", async () => {
    const tool = element(
      'tool',
      cfg({ interpreter: { ...venvPython(), fallback: '/opt/py/bin/python3.12' } }),
    );
    const runtime = element('runtime', cfg({ interpreter: venvPython() }));
    const result = await resolveEnvironment(input([tool, runtime, primitive]));
    expect(result.env['RYE_PYTHON']).toBe('/opt/py/bin/python3.12');
    expect(result.interpreter?.declaredBy).toBe('tool');
  });

  it('returns no interpreter when no element declares one', async () => {
    const result = await resolveEnvironment(input([element('tool', null), primitive]));
    expect(result.interpreter).toBeNull();
  });
});
