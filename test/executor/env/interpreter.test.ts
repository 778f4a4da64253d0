import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import {
  planInterpreterProbes,
  resolveInterpreter,
} from '../../../src/executor/env/interpreter.js';
import type { InterpreterConfig } from '../../../src/executor/types.js';

const created: string[] = [];
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rye-interp-'));
  created.push(dir);
  return dir;
}

/** Write a fake executable (mode 0755, or 0644 when `executable` is false). */
function fakeBinary(path: string, executable = true): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, executable ? 0o755 : 0o644);
  return path;
}

function interpreter(overrides: Partial<InterpreterConfig>): InterpreterConfig {
  return {
    type: 'local_binary',
    var: 'RYE_PYTHON',
    binary: null,
    candidates: [],
    searchPaths: [],
    searchRoots: [],
    venvPath: '.venv',
    fallback: 'python3',
    ...overrides,
  };
}

const posixOnly = process.platform === 'win32' ? it.skip : it;

describe('resolveInterpreter()', () => {
  it('uses the variable the user already set', async () => {
    const project = tempDir();
    fakeBinary(join(project, '.venv/bin/python'));
    const result = await resolveInterpreter(interpreter({ type: 'venv_python' }), {
      projectPath: project,
      env: { RYE_PYTHON: '/opt/my/python' },
      vars: {},
    });
    expect(result).toEqual({ value: '/opt/my/python', source: 'env', path: null });
  });

  posixOnly('ignores an empty user variable', async () => {
    const bin = tempDir();
    const python3 = fakeBinary(join(bin, 'python3'));
    const ctx = { projectPath: tempDir(), env: { RYE_PYTHON: '', PATH: bin }, vars: {} };
    const result = await resolveInterpreter(interpreter({ type: 'venv_python' }), ctx);
    expect(result).toEqual({ value: python3, source: 'fallback', path: python3 });
  });

  posixOnly('looks a bare name the user set up in the absolute PATH folders', async () => {
    const bin = tempDir();
    const python = fakeBinary(join(bin, 'python3.11'));
    const ctx = { projectPath: tempDir(), env: { RYE_PYTHON: 'python3.11', PATH: bin }, vars: {} };
    const result = await resolveInterpreter(interpreter({ type: 'system' }), ctx);
    expect(result).toEqual({ value: python, source: 'env', path: python });
  });

  it('makes a relative path the user set absolute against the working directory', async () => {
    const ctx = { projectPath: tempDir(), env: { RYE_PYTHON: 'venv/bin/python' }, vars: {} };
    const result = await resolveInterpreter(interpreter({ type: 'system' }), ctx);
    expect(result).toEqual({
      value: join(process.cwd(), 'venv/bin/python'),
      source: 'env',
      path: null,
    });
  });

  it('fails when a bare name the user set is on no absolute PATH folder', async () => {
    const ctx = { projectPath: tempDir(), env: { RYE_PYTHON: 'nope-python', PATH: '' }, vars: {} };
    const error = await resolveInterpreter(interpreter({ type: 'system' }), ctx).catch(
      (e: unknown) => e,
    );
    expect((error as RyeError).code).toBe('EXECUTE_COMMAND_NOT_FOUND');
    expect((error as RyeError).message).toContain('RYE_PYTHON names nope-python');
  });

  posixOnly('finds the project venv python', async () => {
    const project = tempDir();
    const python = fakeBinary(join(project, '.venv/bin/python'));
    const ctx = { projectPath: project, env: {}, vars: {} };
    const result = await resolveInterpreter(interpreter({ type: 'venv_python' }), ctx);
    expect(result).toEqual({ value: python, source: 'found', path: python });
  });

  posixOnly('honours a custom venv_path', async () => {
    const project = tempDir();
    const python = fakeBinary(join(project, 'env/py/bin/python'));
    const config = interpreter({ type: 'venv_python', venvPath: 'env/py' });
    const result = await resolveInterpreter(config, { projectPath: project, env: {}, vars: {} });
    expect(result.path).toBe(python);
  });

  posixOnly('skips files that are not executable, and folders', async () => {
    const project = tempDir();
    const bin = tempDir();
    const python3 = fakeBinary(join(bin, 'python3'));
    fakeBinary(join(project, '.venv/bin/python'), false);
    mkdirSync(join(project, '.venv/bin/python3'));
    const config = interpreter({
      binary: 'python',
      candidates: ['python3'],
      searchPaths: ['.venv/bin'],
    });
    const ctx = { projectPath: project, env: { PATH: bin }, vars: {} };
    const result = await resolveInterpreter(config, ctx);
    expect(result).toEqual({ value: python3, source: 'fallback', path: python3 });
  });

  posixOnly('tries the binary before its candidates, search path by search path', async () => {
    const project = tempDir();
    const python3 = fakeBinary(join(project, '.venv/bin/python3'));
    fakeBinary(join(project, '.venv/Scripts/python'));
    const config = interpreter({
      binary: 'python',
      candidates: ['python3'],
      searchPaths: ['.venv/bin', '.venv/Scripts'],
    });
    const result = await resolveInterpreter(config, { projectPath: project, env: {}, vars: {} });
    expect(result.path).toBe(python3);
  });

  posixOnly('searches rendered search roots before the project', async () => {
    const project = tempDir();
    const tool = join(project, '.ai/tools/app');
    fakeBinary(join(project, 'node_modules/.bin/tsx'));
    const toolTsx = fakeBinary(join(tool, 'node_modules/.bin/tsx'));
    const config = interpreter({
      var: 'RYE_NODE',
      binary: 'tsx',
      searchPaths: ['node_modules/.bin'],
      searchRoots: ['{anchor_path}'],
      fallback: 'node',
    });
    const ctx = { projectPath: project, env: {}, vars: { anchor_path: tool } };
    expect((await resolveInterpreter(config, ctx)).path).toBe(toolTsx);
  });

  posixOnly(
    'skips a search root whose variable is unknown and falls back to the project',
    async () => {
      const project = tempDir();
      const projectTsx = fakeBinary(join(project, 'node_modules/.bin/tsx'));
      const config = interpreter({
        binary: 'tsx',
        searchPaths: ['node_modules/.bin'],
        searchRoots: ['{anchor_path}'],
      });
      const ctx = { projectPath: project, env: {}, vars: {} };
      expect(planInterpreterProbes(config, ctx)).toEqual([projectTsx]);
      expect((await resolveInterpreter(config, ctx)).path).toBe(projectTsx);
    },
  );

  posixOnly('looks for the fallback name in node_modules when no binary is named', async () => {
    const project = tempDir();
    const node = fakeBinary(join(project, 'node_modules/.bin/node'));
    const config = interpreter({
      type: 'node_modules',
      var: 'RYE_NODE',
      searchPaths: ['node_modules/.bin'],
      fallback: 'node',
    });
    const ctx = { projectPath: project, env: {}, vars: {} };
    expect((await resolveInterpreter(config, ctx)).path).toBe(node);
  });

  posixOnly('looks a system binary up on PATH', async () => {
    const bin = tempDir();
    const bash = fakeBinary(join(bin, 'mybash'));
    const config = interpreter({
      type: 'system',
      var: 'RYE_BASH',
      binary: 'mybash',
      fallback: '/bin/bash',
    });
    const ctx = { projectPath: tempDir(), env: { PATH: `relative:${bin}` }, vars: {} };
    expect(await resolveInterpreter(config, ctx)).toEqual({
      value: bash,
      source: 'found',
      path: bash,
    });
  });

  it('keeps an absolute fallback as written when nothing is found', async () => {
    const config = interpreter({ type: 'system', binary: 'nope', fallback: '/opt/bin/python3' });
    const ctx = { projectPath: tempDir(), env: {}, vars: {} };
    expect(await resolveInterpreter(config, ctx)).toEqual({
      value: '/opt/bin/python3',
      source: 'fallback',
      path: null,
    });
  });

  posixOnly('never takes a bare fallback from an empty or relative PATH entry', async () => {
    // The spawn would run in the project: `.`, `bin` or '' would let it supply python3.
    const project = tempDir();
    fakeBinary(join(project, 'python3'));
    fakeBinary(join(project, 'bin/python3'));
    const bin = tempDir();
    const python3 = fakeBinary(join(bin, 'python3'));
    const config = interpreter({ type: 'system', fallback: 'python3' });
    const env = { PATH: ['', '.', 'bin', bin].join(delimiter) };
    const ctx = { projectPath: project, env, vars: {} };
    expect(await resolveInterpreter(config, ctx)).toMatchObject({ value: python3, path: python3 });
    const venvCtx = { projectPath: project, env, vars: {} };
    const venv = interpreter({ type: 'venv_python', fallback: 'python3' });
    expect(await resolveInterpreter(venv, venvCtx)).toMatchObject({
      value: python3,
      source: 'fallback',
    });
  });

  it('fails with EXECUTE_COMMAND_NOT_FOUND when a bare fallback is on no absolute PATH folder', async () => {
    const config = interpreter({ type: 'venv_python', fallback: 'python3' });
    const ctx = { projectPath: tempDir(), env: { PATH: 'relative' }, vars: {} };
    const error = await resolveInterpreter(config, ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RyeError);
    expect((error as RyeError).code).toBe('EXECUTE_COMMAND_NOT_FOUND');
    expect((error as RyeError).message).toContain('its fallback is python3');
  });

  it('fails with EXECUTE_COMMAND_NOT_FOUND when nothing is found and there is no fallback', async () => {
    const config = interpreter({
      binary: 'tsx',
      searchPaths: ['node_modules/.bin'],
      fallback: null,
    });
    const project = tempDir();
    const error = await resolveInterpreter(config, {
      projectPath: project,
      env: {},
      vars: {},
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RyeError);
    expect((error as RyeError).code).toBe('EXECUTE_COMMAND_NOT_FOUND');
    expect((error as RyeError).details['probed']).toEqual([join(project, 'node_modules/.bin/tsx')]);
  });
});
