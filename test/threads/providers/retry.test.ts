import { afterEach, describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import {
  createAnthropicClient,
  withProviderRetries,
  type ProviderRequest,
} from '../../../src/threads/providers/index.js';
import { refusal } from '../../helpers/refusal.js';
import {
  startScriptedProvider,
  type ScriptedProvider,
} from '../../support/scripted-provider/index.js';

const transient = (extra: Record<string, unknown> = {}): RyeError =>
  new RyeError('PROVIDER_REQUEST_FAILED', 'Cannot get a response from provider p: 529', {
    provider: 'p',
    retryable: true,
    ...extra,
  });

/** A fake clock: sleeps are recorded, never waited. */
function recorder(): { sleeps: number[]; sleep: (ms: number) => Promise<void> } {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms) => void sleeps.push(ms) };
}

describe('withProviderRetries()', () => {
  it('retries transient failures with bounded exponential backoff, checking before every attempt', async () => {
    const { sleeps, sleep } = recorder();
    const checks: number[] = [];
    let calls = 0;
    const result = await withProviderRetries(
      async () => {
        calls += 1;
        if (calls < 3) throw transient();
        return 'answer';
      },
      { sleep, random: () => 0.5, beforeAttempt: (n) => void checks.push(n) },
    );
    expect(result).toBe('answer');
    expect(checks).toEqual([1, 2, 3]);
    // Half fixed, half random (0.5): 750 ms then 1500 ms.
    expect(sleeps).toEqual([750, 1500]);
  });

  it('waits exactly the retry-after a provider asks for, and stops when it asks for more than the cap', async () => {
    const { sleeps, sleep } = recorder();
    let calls = 0;
    await withProviderRetries(
      async () => {
        calls += 1;
        if (calls === 1) throw transient({ retry_after_ms: 4200 });
        return 'ok';
      },
      { sleep },
    );
    expect(sleeps).toEqual([4200]);
    const tooLong = await refusal(
      withProviderRetries(async () => Promise.reject(transient({ retry_after_ms: 3_600_000 })), {
        sleep,
      }),
    );
    expect(tooLong).toMatchObject({
      code: 'PROVIDER_REQUEST_FAILED',
      details: { attempts: 1, retryable: false },
    });
    expect(tooLong.message).toMatch(/asks to wait 3600 s, over the 60 s cap/);
    expect(sleeps).toEqual([4200]);
  });

  it('gives up after the bound with PROVIDER_REQUEST_FAILED carrying the last failure', async () => {
    const { sleeps, sleep } = recorder();
    let calls = 0;
    const refused = await refusal(
      withProviderRetries(
        async () => {
          calls += 1;
          throw transient({ status: 529 });
        },
        { sleep, policy: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 15 } },
      ),
    );
    expect(calls).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps.every((ms) => ms <= 15)).toBe(true);
    expect(refused).toMatchObject({
      code: 'PROVIDER_REQUEST_FAILED',
      details: {
        attempts: 3,
        retryable: false,
        last: { code: 'PROVIDER_REQUEST_FAILED', status: 529 },
      },
    });
  });

  it('never retries auth, quota, rejected or aborted requests, nor errors that are not provider failures', async () => {
    for (const code of [
      'PROVIDER_AUTH_FAILED',
      'PROVIDER_QUOTA_EXCEEDED',
      'PROVIDER_REQUEST_REJECTED',
      'PROVIDER_REQUEST_ABORTED',
    ] as const) {
      let calls = 0;
      const refused = await refusal(
        withProviderRetries(async () => {
          calls += 1;
          throw new RyeError(code, 'x', { retryable: false });
        }),
      );
      expect(refused.code).toBe(code);
      expect(calls, code).toBe(1);
    }
    let calls = 0;
    await expect(
      withProviderRetries(async () => {
        calls += 1;
        throw new TypeError('a bug');
      }),
    ).rejects.toThrow('a bug');
    expect(calls).toBe(1);
  });

  it('stops when beforeAttempt refuses (budget, deadline), before the attempt runs', async () => {
    const { sleep } = recorder();
    let calls = 0;
    const refused = await refusal(
      withProviderRetries(
        async () => {
          calls += 1;
          throw transient();
        },
        {
          sleep,
          beforeAttempt: (n) => {
            if (n === 2) throw new RyeError('INTERNAL_ERROR', 'budget says no', {});
          },
        },
      ),
    );
    expect(refused.message).toBe('budget says no');
    expect(calls).toBe(1);
  });

  it('ends a wait between attempts when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = withProviderRetries(
      async () => Promise.reject(transient({ retry_after_ms: 50_000 })),
      {
        signal: controller.signal,
        onRetry: () => controller.abort(),
      },
    );
    expect(await refusal(pending)).toMatchObject({
      code: 'PROVIDER_REQUEST_ABORTED',
      details: { attempts: 1 },
    });
  });
});

describe('withProviderRetries() around a real adapter', () => {
  let server: ScriptedProvider | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it("rides out a 429 and a 529 from the scripted provider: three requests, the provider's wait honoured", async () => {
    server = await startScriptedProvider({
      script: [
        {
          turns: [
            { fault: 'rate_limit', retry_after: '3' },
            { fault: 'overloaded' },
            { text: 'third time' },
          ],
        },
      ],
    });
    const client = createAnthropicClient({
      provider: 'anthropic',
      baseUrl: server.url,
      auth: { header: 'authorization', scheme: 'Bearer', env: 'K' },
      credential: 'test-key',
      headers: {},
    });
    const request: ProviderRequest = {
      model: 'm',
      system: '',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [],
      max_tokens: 16,
    };
    const { sleeps, sleep } = recorder();
    const response = await withProviderRetries(() => client.send(request), {
      sleep,
      random: () => 0,
    });
    expect(response.content).toEqual([{ type: 'text', text: 'third time' }]);
    expect(server.requests.map((r) => r.status)).toEqual([429, 529, 200]);
    expect(sleeps).toEqual([3000, 1000]);
  });
});
