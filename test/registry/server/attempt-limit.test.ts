import { afterEach, describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import { AttemptLimiter } from '../../../src/registry/server/attempt-limit.js';
import { expectRefused, makeRegistry, type TestRegistry } from './fixtures.js';

describe('AttemptLimiter', () => {
  it('allows the limit per address and minute, refuses the next with the seconds to wait, then resets', () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const limiter = new AttemptLimiter(3, () => now);
    for (let i = 0; i < 3; i += 1) limiter.take('10.0.0.1');
    limiter.take('10.0.0.2'); // another address has its own window
    now = new Date('2026-01-01T00:00:20Z');
    let refused: unknown;
    try {
      limiter.take('10.0.0.1');
    } catch (error) {
      refused = error;
    }
    expect(isRyeError(refused) && refused.code).toBe('REGISTRY_RATE_LIMITED');
    expect(isRyeError(refused) && refused.details['retryAfterSeconds']).toBe(40);
    now = new Date('2026-01-01T00:01:00Z');
    expect(() => limiter.take('10.0.0.1')).not.toThrow();
  });
});

describe('sign-up and log-in attempts', () => {
  let registry: TestRegistry;
  afterEach(async () => {
    await registry.close();
  });

  it('answers 429 REGISTRY_RATE_LIMITED with retry-after past the limit, counting failed log-ins too', async () => {
    registry = await makeRegistry({ limits: { authAttemptsPerMinute: 3 } });
    const body = { username: 'alice', password: 'password-123' };
    const session = await registry.call('POST', '/v1/accounts', { body });
    expect(session.status).toBe(201);
    const wrong = { username: 'alice', password: 'wrong-password' };
    expect((await registry.call('POST', '/v1/sessions', { body: wrong })).status).toBe(401);
    expect((await registry.call('POST', '/v1/sessions', { body })).status).toBe(201);
    const limited = await registry.call('POST', '/v1/sessions', { body });
    expectRefused(limited, 429, 'REGISTRY_RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('60');
    // Calls made with a token are not charged.
    const whoami = await registry.call('GET', '/v1/whoami', { token: session.json.token });
    expect(whoami.status).toBe(200);
  });
});
