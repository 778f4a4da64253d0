import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isRyeError, type RyeError } from '../../../src/errors/index.js';
import { planHttp, planSubprocess } from '../../../src/executor/run/primitive-config.js';
import type { TemplateVars } from '../../../src/executor/types.js';

const vars = { tool_path: '/p/t.py', params_json: '{}' } as unknown as TemplateVars;
const subprocessContext = { toolExtension: '.py', env: {}, vars, cwd: '/p', source: 't/tool' };
const httpContext = { env: {}, vars, params: {}, source: 't/api' };

/** Every key the primitive's config_schema declares, each with a valid value. */
const FULL_SUBPROCESS = {
  command: '/bin/echo',
  args: ['{tool_path}'],
  args_by_extension: { '.ts': ['x'] },
  cwd: '/tmp',
  timeout: 5,
  input_data: 'in',
  max_output_bytes: 1000,
};
const FULL_HTTP = {
  method: 'POST',
  url: 'http://127.0.0.1:1/x',
  headers: { 'x-a': 'b' },
  body: { a: 1 },
  timeout: 5,
  auth: { type: 'api_key', key: 'k', header: 'X-Key', token: 'unused' },
  retry: { max_attempts: 2, backoff: 'linear', base_delay_ms: 10 },
  max_response_bytes: 1000,
};

function schemaKeys(primitive: string): string[] {
  const url = new URL(
    `../../../system/.ai/tools/rye/core/primitives/${primitive}.yaml`,
    import.meta.url,
  );
  const doc = parse(readFileSync(fileURLToPath(url), 'utf8')) as {
    config_schema: { properties: Record<string, unknown> };
  };
  return Object.keys(doc.config_schema.properties).sort();
}

function failure(fn: () => unknown): RyeError {
  try {
    fn();
  } catch (error) {
    if (isRyeError(error)) return error;
    throw error;
  }
  throw new Error('expected a RyeError');
}

describe('planSubprocess()', () => {
  it('accepts every key the subprocess config_schema declares', () => {
    expect(Object.keys(FULL_SUBPROCESS).sort()).toEqual(schemaKeys('subprocess'));
    expect(planSubprocess(FULL_SUBPROCESS, subprocessContext)).toMatchObject({
      command: '/bin/echo',
      args: ['/p/t.py'],
      cwd: '/tmp',
      stdin: 'in',
      timeoutMs: 5000,
      maxOutputBytes: 1000,
    });
  });

  it('refuses `shell: true` with EXECUTOR_CONFIG_INVALID naming the key', () => {
    const error = failure(() =>
      planSubprocess({ command: '/bin/sh', shell: true }, subprocessContext),
    );
    expect(error.code).toBe('EXECUTOR_CONFIG_INVALID');
    expect(error.message).toContain('t/tool');
    expect(error.message).toContain('config.shell is not a known key');
  });

  it('reports an unknown key together with the other problems, once', () => {
    const error = failure(() => planSubprocess({ timout: 5, command: '' }, subprocessContext));
    expect(error.details['issues']).toEqual([
      expect.stringContaining('config.timout is not a known key'),
      'config.command must be a non-empty string',
    ]);
  });
});

describe('planHttp()', () => {
  it('accepts every key the http_client config_schema declares', () => {
    expect(Object.keys(FULL_HTTP).sort()).toEqual(schemaKeys('http_client'));
    expect(planHttp(FULL_HTTP, httpContext)).toMatchObject({
      method: 'POST',
      auth: { type: 'api_key', key: 'k', header: 'X-Key' },
      retry: { maxAttempts: 2, backoff: 'linear', baseDelayMs: 10 },
      maxResponseBytes: 1000,
    });
  });

  it('refuses unknown keys in config, auth and retry, naming each', () => {
    const config = {
      url: 'http://127.0.0.1:1/x',
      follow_redirects: true,
      auth: { type: 'bearer', token: 't', scheme: 'Basic' },
      retry: { max_attempts: 2, jitter: true },
    };
    const error = failure(() => planHttp(config, httpContext));
    expect(error.code).toBe('EXECUTOR_CONFIG_INVALID');
    expect(error.details['issues']).toEqual([
      expect.stringContaining('config.follow_redirects is not a known key'),
      expect.stringContaining('config.auth.scheme is not a known key'),
      expect.stringContaining('config.retry.jitter is not a known key'),
    ]);
  });

  it('refuses a retry that is not a mapping', () => {
    const error = failure(() => planHttp({ url: 'http://127.0.0.1:1/x', retry: 3 }, httpContext));
    expect(error.details['issues']).toEqual(['config.retry must be a mapping']);
  });

  it('refuses a retry backoff other than exponential or linear', () => {
    const config = { url: 'http://127.0.0.1:1/x', retry: { backoff: 'random' } };
    const error = failure(() => planHttp(config, httpContext));
    expect(error.details['issues']).toEqual([
      'config.retry.backoff must be "exponential" or "linear"',
    ]);
    const linear = planHttp({ ...config, retry: { backoff: 'linear' } }, httpContext);
    expect(linear.retry.backoff).toBe('linear');
  });
});
