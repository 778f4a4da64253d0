import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import {
  readCredential,
  resolveEndpoint,
  selectProvider,
  type ProviderDescriptor,
} from '../../../src/threads/providers/index.js';
import { makeExecProject } from '../../helpers/exec-project.js';
import { refusal } from '../../helpers/refusal.js';

function descriptor(
  id: string,
  base_url: string,
  family: ProviderDescriptor['family'] = 'anthropic_messages',
): ProviderDescriptor {
  return {
    id,
    family,
    base_url,
    auth: { header: 'authorization', scheme: 'Bearer', env: 'THE_KEY' },
    headers: {},
    tiers: {},
    models: {},
  };
}

function thrown(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isRyeError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('resolveEndpoint()', () => {
  it('lets ANTHROPIC_BASE_URL and OPENAI_BASE_URL from the process environment override the standard descriptors', () => {
    const anthropic = resolveEndpoint(descriptor('anthropic', 'https://api.anthropic.com'), {
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080/',
    });
    expect(anthropic).toEqual({
      base_url: 'http://127.0.0.1:8080',
      source: 'ANTHROPIC_BASE_URL',
      host: '127.0.0.1:8080',
    });
    const openai = resolveEndpoint(
      descriptor('openai', 'https://api.openai.com/v1', 'openai_chat'),
      {
        OPENAI_BASE_URL: 'https://proxy.example/v1',
      },
    );
    expect(openai.source).toBe('OPENAI_BASE_URL');
    expect(resolveEndpoint(descriptor('anthropic', 'https://api.anthropic.com'), {}).source).toBe(
      'descriptor',
    );
  });

  it('does not redirect other descriptors with the SDK variables (a local server keeps its own base_url)', () => {
    const local = resolveEndpoint(
      descriptor('ollama', 'http://localhost:11434/v1', 'openai_chat'),
      {
        OPENAI_BASE_URL: 'https://proxy.example/v1',
      },
    );
    expect(local).toMatchObject({ base_url: 'http://localhost:11434/v1', source: 'descriptor' });
  });

  it('sends credentials over plain http only to loopback', () => {
    for (const url of ['http://127.0.0.1:1', 'http://localhost:2', 'http://[::1]:3'])
      expect(resolveEndpoint(descriptor('x', url), {}).base_url).toBe(url);
    expect(thrown(() => resolveEndpoint(descriptor('x', 'http://10.0.0.5:8000'), {})).code).toBe(
      'PROVIDER_INSECURE_TRANSPORT',
    );
    expect(
      thrown(() =>
        resolveEndpoint(descriptor('anthropic', 'https://api.anthropic.com'), {
          ANTHROPIC_BASE_URL: 'http://collector.example',
        }),
      ).code,
    ).toBe('PROVIDER_INSECURE_TRANSPORT');
    expect(
      thrown(() =>
        resolveEndpoint(descriptor('anthropic', 'https://api.anthropic.com'), {
          ANTHROPIC_BASE_URL: 'https://u:p@x.example',
        }),
      ).code,
    ).toBe('PROVIDER_CONFIG_INVALID');
  });
});

describe('readCredential()', () => {
  it('reads the variable auth.env names, and names it (never its value) when missing', () => {
    const d = descriptor('anthropic', 'https://api.anthropic.com');
    expect(readCredential(d, { THE_KEY: 'sk-1' })).toBe('sk-1');
    const missing = thrown(() => readCredential(d, {}));
    expect(missing).toMatchObject({ code: 'PROVIDER_AUTH_MISSING' });
    expect(missing.message).toContain('THE_KEY');
    const broken = thrown(() => readCredential(d, { THE_KEY: 'sk-secret\nInjected: 1' }));
    expect(broken.code).toBe('PROVIDER_AUTH_MISSING');
    expect(broken.message).not.toContain('sk-secret');
  });
});

describe('selectProvider() and the environment', () => {
  it('never takes a base URL or provider from the project .env, only from the process environment', async () => {
    const p = await makeExecProject();
    p.write('.env', 'ANTHROPIC_BASE_URL=https://collector.evil.example\nRYE_PROVIDER=openai\n');
    const chosen = await selectProvider(
      p.spaces,
      { tier: 'sonnet' },
      { env: { PATH: '/usr/bin' } },
    );
    expect(chosen.provider.descriptor.id).toBe('anthropic');
    expect(chosen.endpoint).toMatchObject({ host: 'api.anthropic.com', source: 'descriptor' });
    const overridden = await selectProvider(
      p.spaces,
      { tier: 'sonnet' },
      { env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:1234' } },
    );
    expect(overridden.endpoint).toMatchObject({
      host: '127.0.0.1:1234',
      source: 'ANTHROPIC_BASE_URL',
    });
  });

  it('needs no key to plan, and fails at launch naming the variable', async () => {
    const p = await makeExecProject();
    const chosen = await selectProvider(
      p.spaces,
      { provider: 'openai', tier: 'haiku' },
      { env: {} },
    );
    expect(chosen.model.model).toBe('gpt-4.1-mini');
    const { createProviderClient } = await import('../../../src/threads/providers/index.js');
    const refused = await refusal(
      Promise.resolve().then(() => createProviderClient(chosen, { env: {} })),
    );
    expect(refused).toMatchObject({
      code: 'PROVIDER_AUTH_MISSING',
      details: { env: 'OPENAI_API_KEY' },
    });
  });
});
