import { describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import { parseEnvConfig } from '../../../src/executor/env/env-config.js';

function issuesOf(raw: unknown): { field: string; message: string }[] {
  try {
    parseEnvConfig(raw, 'rye/core/runtimes/python/script');
  } catch (error) {
    expect(error).toBeInstanceOf(RyeError);
    const rye = error as RyeError;
    expect(rye.code).toBe('EXECUTOR_CONFIG_INVALID');
    expect(rye.message).toMatch(/^Cannot use env_config of rye\/core\/runtimes\/python\/script: /);
    return rye.details['issues'] as { field: string; message: string }[];
  }
  throw new Error('expected parseEnvConfig() to throw');
}

describe('parseEnvConfig()', () => {
  it('returns null when there is no env_config', () => {
    expect(parseEnvConfig(undefined, 'x')).toBeNull();
    expect(parseEnvConfig(null, 'x')).toBeNull();
  });

  it('parses the python script runtime env_config', () => {
    const raw = {
      interpreter: {
        type: 'local_binary',
        binary: 'python',
        candidates: ['python3'],
        search_paths: ['.venv/bin', '.venv/Scripts'],
        var: 'RYE_PYTHON',
        fallback: 'python3',
      },
      env: { PYTHONUNBUFFERED: '1', PROJECT_VENV_PYTHON: '${RYE_PYTHON}' },
    };
    expect(parseEnvConfig(raw, 'x')).toEqual({
      interpreter: {
        type: 'local_binary',
        var: 'RYE_PYTHON',
        binary: 'python',
        candidates: ['python3'],
        searchPaths: ['.venv/bin', '.venv/Scripts'],
        searchRoots: [],
        venvPath: '.venv',
        fallback: 'python3',
      },
      env: { PYTHONUNBUFFERED: '1', PROJECT_VENV_PYTHON: '${RYE_PYTHON}' },
      dotenv: [],
    });
  });

  it('fills venv_python and node_modules defaults', () => {
    const venv = parseEnvConfig({ interpreter: { type: 'venv_python', var: 'RYE_PYTHON' } }, 'x');
    expect(venv?.interpreter).toMatchObject({ venvPath: '.venv', fallback: null });
    const node = parseEnvConfig({ interpreter: { type: 'node_modules', var: 'RYE_NODE' } }, 'x');
    expect(node?.interpreter).toMatchObject({ searchPaths: ['node_modules/.bin'], binary: null });
  });

  it('accepts system_binary as the system type', () => {
    const raw = { interpreter: { type: 'system_binary', binary: 'bash', var: 'RYE_BASH' } };
    expect(parseEnvConfig(raw, 'x')?.interpreter).toMatchObject({ type: 'system', binary: 'bash' });
  });

  it('accepts null-prototype objects from the literal parser', () => {
    const env = Object.assign(Object.create(null) as object, { NODE_ENV: 'development' });
    const raw = Object.assign(Object.create(null) as object, { env });
    expect(parseEnvConfig(raw, 'x')).toEqual({
      interpreter: null,
      env: { NODE_ENV: 'development' },
      dotenv: [],
    });
  });

  it('turns numbers and booleans in env into strings', () => {
    expect(parseEnvConfig({ env: { A: 1, B: true, C: 2.5 } }, 'x')?.env).toEqual({
      A: '1',
      B: 'true',
      C: '2.5',
    });
  });

  it('lists every problem at once, naming each field', () => {
    const issues = issuesOf({
      interpreter: { type: 'local_binary', var: '1BAD', binary: 3, search_paths: ['', 'ok'] },
      env: { 'NOT-A-NAME': 'x', GOOD: 'y', OBJ: { a: 1 }, NUL: 'a\0b', NUM: Infinity },
      evn: {},
    });
    expect(issues.map((issue) => issue.field)).toEqual([
      'env_config.evn',
      'env_config.interpreter.var',
      'env_config.interpreter.binary',
      'env_config.interpreter.search_paths[0]',
      'env_config.env.NOT-A-NAME',
      'env_config.env.OBJ',
      'env_config.env.NUL',
      'env_config.env.NUM',
    ]);
  });

  it('refuses an unknown interpreter type and keys foreign to a type', () => {
    expect(issuesOf({ interpreter: { type: 'command', var: 'X', resolve_cmd: ['x'] } })).toEqual([
      expect.objectContaining({ field: 'env_config.interpreter.type' }),
    ]);
    expect(issuesOf({ interpreter: { type: 'toString', var: 'X' } })[0]?.field).toBe(
      'env_config.interpreter.type',
    );
    expect(
      issuesOf({ interpreter: { type: 'venv_python', var: 'X', search_paths: ['a'] } }),
    ).toEqual([expect.objectContaining({ field: 'env_config.interpreter.search_paths' })]);
  });

  it('requires var, and a fallback or binary for system interpreters', () => {
    expect(issuesOf({ interpreter: { type: 'system' } }).map((issue) => issue.field)).toEqual([
      'env_config.interpreter.var',
      'env_config.interpreter.fallback',
    ]);
  });

  it('refuses env_config, interpreter and env that are not mappings', () => {
    expect(issuesOf('python3')[0]?.field).toBe('env_config');
    expect(issuesOf([])[0]?.field).toBe('env_config');
    expect(issuesOf({ interpreter: 'python3', env: ['A=1'] }).map((i) => i.field)).toEqual([
      'env_config.interpreter',
      'env_config.env',
    ]);
  });

  it('parses the dotenv names a signed .env may supply, without duplicates', () => {
    expect(parseEnvConfig({ dotenv: ['API_KEY', 'BASE_URL', 'API_KEY'] }, 'x')?.dotenv).toEqual([
      'API_KEY',
      'BASE_URL',
    ]);
  });

  it('refuses a dotenv declaration of a loader name, whatever its case', () => {
    const issues = issuesOf({
      dotenv: [
        'API_KEY',
        'NODE_OPTIONS',
        'PYTHONPATH',
        'ld_preload',
        'PATH',
        'RYE_PYTHON',
        'BASH_ENV',
      ],
    });
    expect(issues.map((issue) => issue.field)).toEqual([
      'env_config.dotenv[1]',
      'env_config.dotenv[2]',
      'env_config.dotenv[3]',
      'env_config.dotenv[4]',
      'env_config.dotenv[5]',
      'env_config.dotenv[6]',
    ]);
    expect(issues[0]?.message).toBe(
      'names NODE_OPTIONS, which steers an interpreter or loader and is never taken from .env',
    );
  });

  it('refuses a dotenv value that is not a list of variable names', () => {
    expect(issuesOf({ dotenv: 'API_KEY' })[0]?.field).toBe('env_config.dotenv');
    expect(issuesOf({ dotenv: ['A-B', 3, ''] }).map((issue) => issue.field)).toEqual([
      'env_config.dotenv[0]',
      'env_config.dotenv[1]',
      'env_config.dotenv[2]',
    ]);
  });
});
