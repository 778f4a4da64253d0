import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import {
  DEFAULT_PROVIDER,
  providerIdFor,
  resolveModel,
  type ProviderDescriptor,
} from '../../../src/threads/providers/index.js';

const pricing = { input: '1.00', output: '2.00' };
const d: ProviderDescriptor = {
  id: 'anthropic',
  family: 'anthropic_messages',
  base_url: 'https://api.anthropic.com',
  auth: { header: 'x-api-key', env: 'K' },
  headers: {},
  tiers: { sonnet: 'claude-sonnet-4-20250514' },
  models: {
    'claude-sonnet-4-20250514': { context_window: 200000, output_limit: 64000, pricing },
    'claude-3-5-haiku-20241022': { context_window: 200000, output_limit: 8192, pricing },
  },
};

describe('providerIdFor()', () => {
  it('takes <model provider>, else $RYE_PROVIDER, else anthropic', () => {
    expect(providerIdFor({ provider: 'openai' }, { RYE_PROVIDER: 'local' })).toBe('openai');
    expect(providerIdFor({}, { RYE_PROVIDER: 'local' })).toBe('local');
    expect(providerIdFor({}, { RYE_PROVIDER: '' })).toBe(DEFAULT_PROVIDER);
    expect(providerIdFor({}, {})).toBe('anthropic');
  });
});

describe('resolveModel()', () => {
  it('takes a listed <model id> first, then the tier', () => {
    expect(resolveModel(d, { id: 'claude-3-5-haiku-20241022', tier: 'sonnet' })).toMatchObject({
      model: 'claude-3-5-haiku-20241022',
      via: 'id',
    });
    expect(resolveModel(d, { id: 'gpt-4.1', tier: 'sonnet' })).toMatchObject({
      model: 'claude-sonnet-4-20250514',
      via: 'tier',
      info: { output_limit: 64000 },
    });
  });

  it('refuses an unlisted id without a known tier, and an empty choice, with PROVIDER_MODEL_UNKNOWN', () => {
    for (const choice of [
      { id: 'gpt-4.1' },
      { tier: 'opus' },
      {},
      { id: 'constructor' },
      { tier: '__proto__' },
    ]) {
      try {
        resolveModel(d, choice);
        expect.unreachable(JSON.stringify(choice));
      } catch (error) {
        expect(isRyeError(error, 'PROVIDER_MODEL_UNKNOWN'), JSON.stringify(choice)).toBe(true);
      }
    }
  });
});
