/**
 * The runner's ending phase, before finalizing: the endings a turn can come
 * to (THREADS.md §2 "ending", §5). A limit is recorded as `limit_hit`; a turn
 * without calls completes, or gets one reminder when outputs are declared; a
 * valid `directive_return` completes or fails with its summary rendered.
 */
import { RyeError } from '../../errors/index.js';
import type { ContentPart } from '../conversation/index.js';
import { renderSummary, type ReturnSchema, type SummaryValues } from '../directive/index.js';
import type { ProviderResponse } from '../providers/index.js';
import type { TranscriptWriter } from '../transcript/index.js';
import { limitError, type LimitHit } from './limits-check.js';

/** Why the loop stopped. */
export type Ending =
  | { status: 'completed' | 'failed'; outputs?: Record<string, unknown>; summary?: string }
  | { status: 'error' | 'budget_denied' | 'cancelled'; error: RyeError; limit?: LimitHit };

/** The message a thread that stopped without returning gets, once. */
export const RETURN_REMINDER =
  'You have not returned. Call directive_return with the declared outputs to finish this directive.';

/** The ending at a limit, recorded as `limit_hit`. */
export function endAtLimit(writer: TranscriptWriter, hit: LimitHit): Ending {
  writer.append('limit_hit', { limit: hit.limit, current: hit.current, max: hit.max });
  return { status: 'error', error: limitError(hit), limit: hit };
}

/**
 * A turn without tool calls: completed with its text as the summary when the
 * directive declares no outputs; otherwise null (remind it) the first time,
 * THREAD_NO_RETURN once `reminded`. Pure.
 */
export function endWithoutCalls(
  response: ProviderResponse,
  returnSchema: ReturnSchema | undefined,
  directiveId: string,
  reminded: boolean,
): Ending | null {
  const text = response.content
    .filter((p): p is Extract<ContentPart, { type: 'text' }> => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
  if (returnSchema === undefined)
    return { status: 'completed', ...(text === '' ? {} : { summary: text }) };
  if (!reminded) return null;
  return {
    status: 'error',
    error: new RyeError(
      'THREAD_NO_RETURN',
      `Cannot complete directive ${directiveId}: the model stopped without calling directive_return`,
      {},
    ),
  };
}

/**
 * The ending of a valid `directive_return`: `failed` for outcome `failure`,
 * `completed` otherwise, with the outcome's summary template rendered. Pure.
 */
export function endOnReturn(
  returned: Record<string, unknown>,
  returnSchema: ReturnSchema | undefined,
  inputs: SummaryValues['inputs'],
  threadId: string,
): Ending {
  const outcome = returned['outcome'] === 'failure' ? 'failure' : 'success';
  const template = returnSchema?.templates[outcome];
  const summary =
    template === undefined
      ? undefined
      : renderSummary(template, { inputs, outputs: returned, thread_id: threadId });
  return {
    status: outcome === 'failure' ? 'failed' : 'completed',
    outputs: returned,
    ...(summary === undefined ? {} : { summary }),
  };
}
