import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import { parseProviderDescriptor } from '../../../src/threads/providers/index.js';
import { descriptorYaml } from './fixtures.js';

const valid = (): Record<string, unknown> =>
  parse(descriptorYaml({ baseUrl: 'https://api.example.com' })) as Record<string, unknown>;

function issuesOf(doc: unknown): string[] {
  try {
    parseProviderDescriptor('test', doc, 'test.yaml');
  } catch (error) {
    if (isRyeError(error, 'PROVIDER_CONFIG_INVALID'))
      return (error.details['issues'] as { field: string }[]).map((i) => i.field);
    throw error;
  }
  return [];
}

describe('parseProviderDescriptor()', () => {
  it('returns a typed descriptor with models, tiers, headers and decimal prices kept as text', () => {
    const d = parseProviderDescriptor('test', valid(), 'test.yaml');
    expect(d).toMatchObject({
      id: 'test',
      family: 'anthropic_messages',
      base_url: 'https://api.example.com',
      auth: { header: 'x-api-key', env: 'TEST_PROVIDER_KEY' },
      headers: { 'x-test-header': 'fixed-value' },
      tiers: { small: 'small-model', big: 'big-model' },
      version: '1.0.0',
    });
    expect(d.models['big-model']).toEqual({
      context_window: 200000,
      output_limit: 8192,
      pricing: { input: '3.00', output: '15.00', cache_read: '0.30', cache_write: '3.75' },
    });
  });

  it('refuses every unknown key, at every level, and reports them all at once', () => {
    const doc = valid();
    doc['tool_type'] = 'python';
    doc['executor_id'] = 'rye/core/primitives/subprocess';
    (doc['auth'] as Record<string, unknown>)['token'] = 'x';
    const models = doc['models'] as Record<string, Record<string, unknown>>;
    models['small-model']!['temperature'] = 1;
    (models['big-model']!['pricing'] as Record<string, unknown>)['thinking'] = '1.00';
    expect(issuesOf(doc)).toEqual(
      expect.arrayContaining([
        'tool_type',
        'executor_id',
        'auth.token',
        'models.small-model.temperature',
        'models.big-model.pricing.thinking',
      ]),
    );
  });

  it('refuses prices that are not exact decimal strings (floats, exponents, negatives, 10 decimals)', () => {
    for (const price of [3, 3.5, '3e2', '-1.00', '1.0000000001', '', '0x10', ' 3.00']) {
      const doc = valid();
      const pricing = (doc['models'] as Record<string, Record<string, Record<string, unknown>>>)[
        'small-model'
      ]!['pricing']!;
      pricing['input'] = price;
      expect(issuesOf(doc), String(price)).toEqual(['models.small-model.pricing.input']);
    }
  });

  it('refuses tiers that name unlisted models, and limits above the context window', () => {
    const doc = valid();
    (doc['tiers'] as Record<string, unknown>)['huge'] = 'not-listed';
    (doc['models'] as Record<string, Record<string, unknown>>)['small-model']!['output_limit'] =
      200_000;
    expect(issuesOf(doc)).toEqual(['models.small-model.output_limit', 'tiers.huge']);
  });

  it('refuses headers the adapter or HTTP owns, so a descriptor cannot smuggle a second credential', () => {
    for (const name of ['authorization', 'X-Api-Key', 'host', 'content-length', 'cookie']) {
      const doc = valid();
      doc['headers'] = { [name]: 'x' };
      expect(issuesOf(doc), name).toEqual([`headers.${name}`]);
    }
    const doc = valid();
    doc['headers'] = { 'x-ok': 'line\r\nx-injected: 1' };
    expect(issuesOf(doc)).toEqual(['headers.x-ok']);
  });

  it('refuses auth combinations no SDK option can send', () => {
    const doc = valid();
    doc['family'] = 'openai_chat';
    expect(issuesOf(doc)).toEqual(['auth.header']);
    const bearerless = valid();
    bearerless['auth'] = { header: 'authorization', env: 'K' };
    expect(issuesOf(bearerless)).toEqual(['auth.scheme']);
    const badEnv = valid();
    badEnv['auth'] = { header: 'x-api-key', env: 'A-B' };
    expect(issuesOf(badEnv)).toEqual(['auth.env']);
  });

  it('refuses base URLs with credentials, queries or other schemes', () => {
    for (const url of [
      'https://u:p@api.example.com',
      'https://api.example.com/?k=1',
      'ftp://x',
      'not a url',
      'file:///etc',
    ]) {
      const doc = valid();
      doc['base_url'] = url;
      expect(issuesOf(doc), url).toEqual(['base_url']);
    }
  });

  it('caps sizes: at most 256 models', () => {
    const doc = valid();
    const models: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++)
      models[`m${i}`] = {
        context_window: 10,
        output_limit: 1,
        pricing: { input: '1', output: '1' },
      };
    doc['models'] = models;
    doc['tiers'] = {};
    expect(issuesOf(doc)).toEqual(['models']);
  });

  it('takes max_tokens_field only for openai_chat', () => {
    const doc = valid();
    doc['max_tokens_field'] = 'max_tokens';
    expect(issuesOf(doc)).toEqual(['max_tokens_field']);
    const openai = parse(
      descriptorYaml({ baseUrl: 'http://127.0.0.1:11434/v1', family: 'openai_chat' }),
    ) as Record<string, unknown>;
    openai['max_tokens_field'] = 'max_tokens';
    expect(parseProviderDescriptor('ollama', openai, 'x').max_tokens_field).toBe('max_tokens');
  });

  it('refuses any unknown top-level key (property)', () => {
    const known = new Set([
      'family',
      'base_url',
      'auth',
      'headers',
      'tiers',
      'models',
      'max_tokens_field',
      'version',
      'category',
      'description',
    ]);
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1, maxLength: 20 })
          .filter((k) => !known.has(k) && k !== '__proto__'),
        fc.jsonValue(),
        (key, value) => {
          const doc = valid();
          Object.defineProperty(doc, key, {
            value,
            enumerable: true,
            configurable: true,
            writable: true,
          });
          expect(issuesOf(doc)).toContain(key.slice(0, 64));
        },
      ),
    );
  });
});
