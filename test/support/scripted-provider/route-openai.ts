/** `POST /v1/chat/completions`: auth, the API's checks, then the conversation's next scripted turn. */
import { checkOpenAIRequest } from './openai-checks.js';
import { openAIError, openAIEvents, openAIJson } from './openai-replies.js';
import { renderReply } from './rendered.js';
import { fillResultRefs, latestToolResults } from './result-refs.js';
import { reset, sendJson, sendStream } from './respond.js';
import { isFault, type ScriptFault } from './script.js';
import type { RouteContext } from './route-context.js';

type Fail = (
  status: number,
  type: string,
  message: string,
  code?: string | null,
  extra?: Record<string, string>,
) => void;

export async function handleOpenAI(ctx: RouteContext): Promise<void> {
  const { res, options } = ctx;
  const ids = { 'x-request-id': ctx.requestId };
  const fail: Fail = (status, type, message, code = null, extra = {}) => {
    ctx.record({ status });
    sendJson(res, status, openAIError(type, message, null, code), { ...ids, ...extra });
  };
  const auth = ctx.headers['authorization'];
  if (auth === undefined)
    return fail(
      401,
      'invalid_request_error',
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    );
  if (auth !== `Bearer ${options.key}`)
    return fail(401, 'invalid_request_error', 'Incorrect API key provided.', 'invalid_api_key');
  const view = checkOpenAIRequest(ctx.body);
  if ('status' in view) {
    ctx.record({ status: view.status });
    return sendJson(
      res,
      view.status,
      openAIError(view.type, view.message, view.param, view.code),
      ids,
    );
  }
  const next = ctx.book.next(view);
  if (typeof next === 'string') {
    ctx.problem(next);
    return fail(500, 'server_error', `scripted provider: ${next}`);
  }
  ctx.record({ conversation: next.key, turn: next.index });
  const model = String((ctx.body as Record<string, unknown>)['model']);
  if (isFault(next.turn)) return fault(ctx, next.turn, next.key, next.index, view, model, fail);
  const filled = fillResultRefs(next.turn, latestToolResults('openai', ctx.body));
  for (const problem of filled.problems) ctx.problem(problem);
  const reply = renderReply('openai', filled.reply, next.key, next.index, ctx.raw.length);
  ctx.record({ status: 200 });
  if (!view.stream) return sendJson(res, 200, openAIJson(reply, model, options.created), ids);
  const events = openAIEvents(reply, model, options.created, options.chunk, view.includeUsage);
  await sendStream(res, { events }, ids);
}

async function fault(
  ctx: RouteContext,
  turn: ScriptFault,
  key: string,
  index: number,
  view: { stream: boolean; includeUsage: boolean },
  model: string,
  fail: Fail,
): Promise<void> {
  switch (turn.fault) {
    case 'status':
      return fail(
        turn.status,
        turn.error_type ?? (turn.status >= 500 ? 'server_error' : 'invalid_request_error'),
        turn.message ?? `scripted status ${turn.status}`,
        turn.error_code ?? null,
        retryHeaders(turn),
      );
    case 'rate_limit':
      return fail(
        429,
        'requests',
        'Rate limit reached for requests',
        'rate_limit_exceeded',
        retryHeaders({ retry_after: '1', ...turn }),
      );
    case 'overloaded':
      return fail(
        503,
        'server_error',
        'The engine is currently overloaded, please try again later',
      );
    case 'server_error':
      return fail(500, 'server_error', 'The server had an error while processing your request.');
    case 'quota':
      return fail(
        429,
        'insufficient_quota',
        'You exceeded your current quota, please check your plan and billing details.',
        'insufficient_quota',
      );
    case 'auth':
      return fail(401, 'invalid_request_error', 'Incorrect API key provided.', 'invalid_api_key');
    case 'reset':
    case 'stall':
    case 'sse_error': {
      if (!view.stream || turn.reply === undefined) {
        ctx.record({ status: 0 });
        if (turn.fault === 'reset') return reset(ctx.res);
        if (turn.fault === 'stall') return new Promise((resolve) => ctx.res.once('close', resolve));
        return fail(500, 'server_error', 'The server had an error while processing your request.');
      }
      const reply = renderReply('openai', turn.reply, key, index, ctx.raw.length);
      const events = openAIEvents(
        reply,
        model,
        ctx.options.created,
        ctx.options.chunk,
        view.includeUsage,
      );
      const after = turn.after_events ?? 1;
      ctx.record({ status: 200 });
      const error = {
        error: {
          message: 'The server had an error while processing your request.',
          type: turn.fault === 'sse_error' ? (turn.error_type ?? 'server_error') : '',
          param: null,
          code: null,
        },
      };
      return sendStream(
        ctx.res,
        turn.fault === 'reset'
          ? { events, resetAfter: after }
          : turn.fault === 'stall'
            ? { events, hangAfter: after }
            : { events, errorAfter: after, errorEvent: { event: null, data: error } },
        { 'x-request-id': ctx.requestId },
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
