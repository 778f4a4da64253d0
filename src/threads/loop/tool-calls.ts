/**
 * The runner's tool-call phase: the calls of one answer run (at most
 * TOOL_CONCURRENCY at once, one at a time beside `directive_return`), each
 * counted toward `tool_calls` and recorded, every call answered in call
 * order, and the thread stopped by five denials in a row (THREADS.md §2, §5).
 * One call is dispatch.ts's.
 */
import { RyeError } from '../../errors/index.js';
import type { ContentPart } from '../conversation/index.js';
import type { ReturnSchema, SummaryValues } from '../directive/index.js';
import { resultText } from '../prompt/index.js';
import { callDispatchOf } from './call-context.js';
import {
  dispatchCall,
  predictDenied,
  requiredCapOf,
  type CallOutcome,
  type DispatchContext,
  type ToolCall,
} from './dispatch.js';
import { endAtLimit, endOnReturn, type Ending } from './ending.js';
import { limitError, type LimitHit } from './limits-check.js';
import type { RunContext } from './run-context.js';
import { mapInWindow } from './window.js';

/** Consecutive capability denials that end a thread (THREADS.md §5). */
export const MAX_CONSECUTIVE_DENIALS = 5;
/** Tool calls of one message run at most this many at once (THREADS.md §2). */
export const TOOL_CONCURRENCY = 4;

/** What running a thread's calls needs from its run. */
export interface ToolCallsContext extends RunContext {
  readonly dispatch: DispatchContext;
  readonly returnSchema: ReturnSchema | undefined;
  readonly inputs: SummaryValues['inputs'];
}

/** An answer's calls answered: the results as the model sees them, and what they came to. */
interface Answers {
  readonly parts: ContentPart[];
  /** The outputs of the last valid `directive_return`. */
  readonly returned?: Record<string, unknown>;
  /** Five denials in a row: the thread stops. */
  readonly stopped: boolean;
  /** The first limit a call reached. */
  readonly limit?: LimitHit;
}

/** A thread's tool calls, turn after turn: the denials in a row carry over. */
export class ToolCalls {
  readonly #ctx: ToolCallsContext;
  #denials = 0;

  constructor(ctx: ToolCallsContext) {
    this.#ctx = ctx;
  }

  /**
   * Run one answer's calls: every call gets exactly one result, in call
   * order, joined to the conversation as one user message. Returns the
   * thread's ending (five denials, a limit, a `directive_return`), or null
   * to go on.
   */
  async run(calls: readonly ToolCall[]): Promise<Ending | null> {
    const { writer, cost } = this.#ctx;
    const limits = this.#ctx.limits.resolved;
    const serial = calls.some((c) => c.name === 'directive_return');
    let overLimit: LimitHit | null = null;
    // The five-denial stop is decided before anything runs: no call after the
    // stopping denial is dispatched (each is answered "not run" below).
    const dispatched = await this.#untilDenialStop(calls);
    const outcomes = await mapInWindow(dispatched, serial ? 1 : TOOL_CONCURRENCY, async (call) => {
      const required = requiredCapOf(call.name, call.input);
      writer.append('tool_call_start', {
        call_id: call.id,
        name: call.name,
        input: call.input,
        required_cap: required,
      });
      const attempts = cost.countToolCall();
      if (limits.tool_calls !== 0 && attempts > limits.tool_calls) {
        overLimit = { limit: 'tool_calls', current: attempts, max: limits.tool_calls };
        const error = limitError(overLimit);
        return {
          result: { status: 'error' as const, error: { code: error.code, message: error.message } },
          denied: false,
        };
      }
      const outcome = await dispatchCall(
        call,
        callDispatchOf(this.#ctx.dispatch, call.id, this.#ctx),
      );
      if (outcome.denied)
        writer.append('capability_denied', { call_id: call.id, required: required ?? call.name });
      return outcome;
    });
    const { parts, returned, stopped, limit } = this.#answer(calls, outcomes);
    overLimit ??= limit ?? null;
    this.#ctx.body.push({ role: 'user', content: parts });
    if (stopped)
      return {
        status: 'error',
        error: new RyeError(
          'THREAD_DENIED_REPEATEDLY',
          `Cannot continue the thread: ${MAX_CONSECUTIVE_DENIALS} calls in a row were outside its capabilities`,
          { denials: MAX_CONSECUTIVE_DENIALS },
        ),
      };
    if (overLimit !== null) return endAtLimit(writer, overLimit);
    if (returned !== undefined)
      return endOnReturn(returned, this.#ctx.returnSchema, this.#ctx.inputs, this.#ctx.threadId);
    return null;
  }

  /** The calls of a message up to and including the one whose denial would stop the thread. */
  async #untilDenialStop(calls: readonly ToolCall[]): Promise<readonly ToolCall[]> {
    let run = this.#denials;
    for (const [i, call] of calls.entries()) {
      run = (await predictDenied(call, this.#ctx.dispatch)) ? run + 1 : 0;
      if (run >= MAX_CONSECUTIVE_DENIALS) return calls.slice(0, i + 1);
    }
    return calls;
  }

  /** Every call's result recorded and shown, in call order, then "not run" for those after a stop. */
  #answer(calls: readonly ToolCall[], outcomes: readonly CallOutcome[]): Answers {
    const { writer } = this.#ctx;
    const parts: ContentPart[] = [];
    let returned: Record<string, unknown> | undefined;
    let limit: LimitHit | undefined;
    let stopped = false;
    for (const [i, outcome] of outcomes.entries()) {
      const call = calls[i] as ToolCall;
      const ok = outcome.result.status === 'success';
      const shown = resultText(outcome.result);
      writer.append('tool_call_result', {
        call_id: call.id,
        ok,
        ...(outcome.result.status === 'success'
          ? { output: outcome.result.data }
          : { error: outcome.result.error }),
        bytes: shown.bytes,
        truncated: shown.truncated,
      });
      parts.push({ type: 'tool_result', call_id: call.id, ok, content: shown.text });
      this.#denials = outcome.denied ? this.#denials + 1 : 0;
      if (outcome.returned !== undefined) returned = { ...outcome.returned };
      if (outcome.limit !== undefined) limit ??= outcome.limit;
      this.#ctx.progress(
        `  ${call.name} ${describeTarget(call.input)} → ${ok ? 'ok' : outcome.result.status === 'error' ? outcome.result.error.code : ''}`,
      );
      // Every dispatched call ran: its result is recorded as it came, even after a
      // stop the prediction missed (a file changed between the two checks).
      if (this.#denials >= MAX_CONSECUTIVE_DENIALS) stopped = true;
    }
    // Every call is answered, even those never run after a stop, so the conversation stays resumable.
    for (const call of calls.slice(parts.length)) {
      const error = { code: 'THREAD_DENIED_REPEATEDLY', message: 'not run: the thread stopped' };
      const text = JSON.stringify({ status: 'error', error });
      writer.append('tool_call_result', {
        call_id: call.id,
        ok: false,
        error,
        bytes: text.length,
        truncated: false,
      });
      parts.push({ type: 'tool_result', call_id: call.id, ok: false, content: text });
    }
    return {
      parts,
      ...(returned === undefined ? {} : { returned }),
      stopped,
      ...(limit === undefined ? {} : { limit }),
    };
  }
}

/** The item a call names, for the progress line. */
function describeTarget(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const { item_type: t, item_id: id, query } = input as Record<string, unknown>;
  const target = typeof id === 'string' ? id : typeof query === 'string' ? `"${query}"` : '';
  return `${typeof t === 'string' ? t : ''} ${target.slice(0, 80)}`.trim();
}
