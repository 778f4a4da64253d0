/** `POST /v1/messages`: auth, the API's checks, then the conversation's next scripted turn. */
import { checkAnthropicRequest } from './anthropic-checks.js';
import { anthropicError, anthropicEvents, anthropicJson } from './anthropic-replies.js';
import { renderReply } from './rendered.js';
import { fillResultRefs, latestToolResults } from './result-refs.js';
import { reset, sendJson, sendStream } from './respond.js';
import { isFault, type ScriptFault } from './script.js';
import type { RouteContext } from './route-context.js';

const DEFAULT_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export async function handleAnthropic(ctx: RouteContext): Promise<void> {
  const { res, headers, options } = ctx;
  const requestId = ctx.requestId;
  const ids = { 'request-id': requestId };
  const fail = (
    status: number,
    type: string,
    message: string,
    extra: Record<string, string> = {},
  ): void => {
    ctx.record({ status });
    sendJson(res, status, anthropicError(type, message, requestId), { ...ids, ...extra });
  };
  const authProblem = checkAuth(headers, options.key, options.anthropicAuth);
  if (authProblem !== undefined) return fail(401, 'authentication_error', authProblem);
  const view = checkAnthropicRequest(headers, ctx.body);
  if ('status' in view) return fail(view.status, view.type, view.message);
  const next = ctx.book.next(view);
  if (typeof next === 'string') {
    ctx.problem(next);
    return fail(500, 'api_error', `scripted provider: ${next}`);
  }
  ctx.record({ conversation: next.key, turn: next.index });
  const model = String((ctx.body as Record<string, unknown>)['model']);
  if (isFault(next.turn))
    return fault(ctx, next.turn, next.key, next.index, view.stream, model, fail);
  const filled = fillResultRefs(next.turn, latestToolResults('anthropic', ctx.body));
  for (const problem of filled.problems) ctx.problem(problem);
  const reply = renderReply('anthropic', filled.reply, next.key, next.index, ctx.raw.length);
  ctx.record({ status: 200 });
  if (!view.stream) return sendJson(res, 200, anthropicJson(reply, model), ids);
  await sendStream(res, { events: anthropicEvents(reply, model, options.chunk) }, ids);
}

async function fault(
  ctx: RouteContext,
  turn: ScriptFault,
  key: string,
  index: number,
  stream: boolean,
  model: string,
  fail: (status: number, type: string, message: string, extra?: Record<string, string>) => void,
): Promise<void> {
  switch (turn.fault) {
    case 'status':
      return fail(
        turn.status,
        turn.error_type ?? DEFAULT_TYPES[turn.status] ?? 'api_error',
        turn.message ?? `scripted status ${turn.status}`,
        retryHeaders(turn),
      );
    case 'rate_limit':
      return fail(
        429,
        'rate_limit_error',
        'Number of request tokens has exceeded your per-minute rate limit',
        retryHeaders({ retry_after: '1', ...turn }),
      );
    case 'overloaded':
      return fail(529, 'overloaded_error', 'Overloaded');
    case 'server_error':
      return fail(500, 'api_error', 'Internal server error');
    case 'quota':
      return fail(
        402,
        'billing_error',
        'Your credit balance is too low to access the Anthropic API.',
      );
    case 'auth':
      return fail(401, 'authentication_error', 'invalid x-api-key');
    case 'reset':
    case 'stall':
    case 'sse_error': {
      if (!stream || turn.reply === undefined) {
        ctx.record({ status: 0 });
        if (turn.fault === 'reset') return reset(ctx.res);
        if (turn.fault === 'stall') return new Promise((resolve) => ctx.res.once('close', resolve));
        return fail(529, turn.error_type ?? 'overloaded_error', 'Overloaded');
      }
      const reply = renderReply('anthropic', turn.reply, key, index, ctx.raw.length);
      const events = anthropicEvents(reply, model, ctx.options.chunk);
      const after = turn.after_events ?? 1;
      ctx.record({ status: 200 });
      const type = turn.fault === 'sse_error' ? (turn.error_type ?? 'overloaded_error') : '';
      return sendStream(
        ctx.res,
        turn.fault === 'reset'
          ? { events, resetAfter: after }
          : turn.fault === 'stall'
            ? { events, hangAfter: after }
            : {
                events,
                errorAfter: after,
                errorEvent: {
                  event: 'error',
                  data: { type: 'error', error: { type, message: 'Overloaded' } },
                },
              },
        { 'request-id': ctx.requestId },
      );
    }
  }
}

function retryHeaders(turn: {
  retry_after?: string;
  retry_after_ms?: string;
}): Record<string, string> {
  return {
    ...(turn.retry_after === undefined ? {} : { 'retry-after': turn.retry_after }),
    ...(turn.retry_after_ms === undefined ? {} : { 'retry-after-ms': turn.retry_after_ms }),
  };
}

/** The key in the configured header (x-api-key, or authorization: Bearer). */
function checkAuth(
  headers: Readonly<Record<string, string | undefined>>,
  key: string,
  header: 'x-api-key' | 'authorization',
): string | undefined {
  if (header === 'x-api-key') {
    const given = headers['x-api-key'];
    if (given === undefined) return 'x-api-key header is required';
    return given === key ? undefined : 'invalid x-api-key';
  }
  const given = headers['authorization'];
  if (given === undefined) return 'authorization header is required';
  return given === `Bearer ${key}` ? undefined : 'invalid bearer token';
}
