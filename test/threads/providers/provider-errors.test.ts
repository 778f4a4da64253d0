import { describe, expect, it } from 'vitest';
import {
  classifyFailure,
  retryAfterMs,
  type WireFailure,
} from '../../../src/threads/providers/index.js';

const calm = { callerAborted: false, deadlinePassed: false };
const status = (s: number, extra: Partial<WireFailure> = {}): WireFailure => ({
  kind: 'status',
  status: s,
  message: `status ${s}`,
  ...extra,
});

describe('classifyFailure()', () => {
  it('maps statuses and error types to codes, retrying only the transient ones', () => {
    const table: [WireFailure, string, boolean][] = [
      [status(401), 'PROVIDER_AUTH_FAILED', false],
      [status(403, { errorType: 'permission_error' }), 'PROVIDER_AUTH_FAILED', false],
      [status(402, { errorType: 'billing_error' }), 'PROVIDER_QUOTA_EXCEEDED', false],
      [
        status(429, { errorType: 'insufficient_quota', errorCode: 'insufficient_quota' }),
        'PROVIDER_QUOTA_EXCEEDED',
        false,
      ],
      [
        status(429, { errorType: 'rate_limit_error', errorCode: 'enforced_spend_limit_reached' }),
        'PROVIDER_QUOTA_EXCEEDED',
        false,
      ],
      [
        status(400, { message: 'Your credit balance is too low to access the Anthropic API.' }),
        'PROVIDER_QUOTA_EXCEEDED',
        false,
      ],
      [status(429, { errorType: 'rate_limit_error' }), 'PROVIDER_REQUEST_FAILED', true],
      [status(408), 'PROVIDER_REQUEST_FAILED', true],
      [status(500), 'PROVIDER_REQUEST_FAILED', true],
      [status(529, { errorType: 'overloaded_error' }), 'PROVIDER_REQUEST_FAILED', true],
      [status(400, { errorType: 'invalid_request_error' }), 'PROVIDER_REQUEST_REJECTED', false],
      [status(404), 'PROVIDER_REQUEST_REJECTED', false],
      [status(413), 'PROVIDER_REQUEST_REJECTED', false],
      [
        { kind: 'stream_error', errorType: 'overloaded_error', message: 'Overloaded' },
        'PROVIDER_REQUEST_FAILED',
        true,
      ],
      [
        { kind: 'stream_error', errorType: 'invalid_request_error', message: 'bad' },
        'PROVIDER_REQUEST_REJECTED',
        false,
      ],
      [{ kind: 'connection', message: 'terminated' }, 'PROVIDER_REQUEST_FAILED', true],
      [{ kind: 'timeout', message: 'timed out' }, 'PROVIDER_REQUEST_FAILED', true],
      [{ kind: 'abort', message: 'aborted' }, 'PROVIDER_REQUEST_ABORTED', false],
    ];
    for (const [failure, code, retryable] of table) {
      const error = classifyFailure('p', failure, calm);
      expect([error.code, error.details['retryable']], JSON.stringify(failure)).toEqual([
        code,
        retryable,
      ]);
    }
  });

  it('treats a timeout once the deadline passed as an abort, not a failure to retry', () => {
    const error = classifyFailure(
      'p',
      { kind: 'timeout', message: 't' },
      { callerAborted: false, deadlinePassed: true },
    );
    expect(error).toMatchObject({
      code: 'PROVIDER_REQUEST_ABORTED',
      details: { reason: 'deadline' },
    });
  });

  it('keeps provider text short and free of control characters', () => {
    const error = classifyFailure(
      'p',
      status(400, { message: `bad\u001b[31m${'x'.repeat(2000)}` }),
      calm,
    );
    expect(error.message).not.toContain('\u001b');
    expect(error.message.length).toBeLessThan(700);
  });
});

describe('retryAfterMs()', () => {
  it('reads retry-after-ms, retry-after seconds and HTTP dates; ignores garbage', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(
      5000,
    );
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now)).toBe(
      0,
    );
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': '-3' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });
});
