import type { RyeError } from '../../errors/index.js';
import type { Message } from '../conversation/index.js';
import { rebuildThread } from '../transcript/index.js';
import { MAX_CONVERSATION_CHARS, planCompaction, readOwnEvents, renderSpan } from './compaction.js';
import { CHARS_PER_TOKEN, windowTokens } from './pressure.js';
import { HookRuntime, contextExhausted, type HookRuntimeInit } from './runtime.js';
import { budgetWhens, whenOfLimit } from './select.js';

/** Hook-driven retries of failed provider calls in a row; no hook raises a limit. */
export const MAX_HOOK_RETRIES = 3;

/** The live window the next request would carry. */
export interface LiveWindow {
  readonly system: string;
  readonly messages: readonly Message[];
  readonly contextWindow: number;
  /**
   * The request's JSON bytes as the loop keeps them: never fewer than the
   * window's characters, so a window whose bytes are under every threshold
   * is not measured at all.
   */
  readonly bytes: number;
  readonly transcript: string;
  readonly artifactsDir: string;
}

/** What the pressure check came to: a compacted conversation, an overflow, or nothing. */
export type PressureOutcome =
  { readonly messages: Message[] } | { readonly exhausted: RyeError } | Record<string, never>;

/** How a thread is ending, as the hooks see it. */
export interface EndingView {
  readonly status: string;
  readonly error?: RyeError;
  readonly limit?: { readonly limit: string };
}

/**
 * A thread's hooks at the loop's event points (THREADS.md §12). The loop
 * calls one method per point and applies the answer; everything about
 * which hooks fire, with what, and what their results mean lives here.
 */
export class ThreadHooks {
  readonly #rt: HookRuntime;
  readonly #firedOn = new WeakSet<RyeError>();
  #retries = 0;

  /** The lowest pressure ratio declared (1: the context window itself). */
  readonly #lowest: number;

  constructor(init: HookRuntimeInit) {
    this.#rt = new HookRuntime(init);
    this.#lowest = Math.min(
      1,
      ...this.#rt.hooksOf('context_window_pressure').map((h) => h.ratio ?? 1),
    );
  }

  cancel(reason: unknown): void {
    this.#rt.cancel(reason);
  }

  /** `thread_started`, after admission: notes for the first request. */
  started(): Promise<string[]> {
    return this.#rt.fire('thread_started');
  }

  /** `after_step`, after a turn's results fold and the loop goes on: notes for the next request. */
  afterStep(): Promise<string[]> {
    this.#retries = 0;
    return this.#rt.fire('after_step');
  }

  /**
   * Before a request: when the live window passes a `context_window_pressure`
   * hook's ratio, the first such hook whose `control` answer is a summary
   * compacts the oldest span (a `compaction` event; the conversation is then
   * rebuilt from the transcript, exactly as resume will). A window still over
   * the context window is THREAD_CONTEXT_EXHAUSTED.
   */
  async beforeRequest(window: LiveWindow): Promise<PressureOutcome> {
    if (Math.ceil(window.bytes / CHARS_PER_TOKEN) <= this.#lowest * window.contextWindow) return {};
    const tokens = windowTokens(window.system, window.messages);
    let compacted: Message[] | undefined;
    for (const hook of this.#rt.hooksOf('context_window_pressure')) {
      if (this.#rt.cancelled || tokens <= (hook.ratio ?? 1) * window.contextWindow) continue;
      const events = readOwnEvents(window.transcript, window.artifactsDir);
      const span = planCompaction(rebuildThread(events).units);
      if (span === null) break;
      const result = await this.#rt.fireOne(hook, {
        conversation: renderSpan(span.units, MAX_CONVERSATION_CHARS[hook.action.kind]),
      });
      const control = this.#rt.control(hook, 'context_window_pressure', result);
      if (control === undefined) continue;
      this.#rt.writer.append('compaction', {
        replaces: [span.from, span.to],
        summary: control.summary,
        by_thread: result.child ?? null,
      });
      compacted = [
        ...rebuildThread(readOwnEvents(window.transcript, window.artifactsDir)).messages,
      ];
      break;
    }
    const after = compacted === undefined ? tokens : windowTokens(window.system, compacted);
    if (after > window.contextWindow)
      return { exhausted: contextExhausted(after, window.contextWindow) };
    return compacted === undefined ? {} : { messages: compacted };
  }

  /**
   * `error` after a failed provider call: `retry` when the failure is the
   * provider's (`PROVIDER_*`), a `control` hook says so and none said `fail`
   * (at most 3 in a row), else `fail`.
   */
  async onProviderError(error: RyeError): Promise<'retry' | 'fail'> {
    const decision = await this.#onError(error);
    // Only a provider failure is retried: a bound violation or a harness stop never is.
    if (!error.code.startsWith('PROVIDER_')) return 'fail';
    if (decision !== 'retry' || this.#retries >= MAX_HOOK_RETRIES) return 'fail';
    this.#retries += 1;
    return 'retry';
  }

  /** Before the terminal event: `limit` hooks for a limit or a refused reservation, else `error` hooks. */
  async beforeEnd(ending: EndingView): Promise<void> {
    const { error } = ending;
    if (error === undefined || this.#rt.cancelled) return;
    const limit =
      ending.limit?.limit ??
      (error.code === 'THREAD_LIMIT_EXCEEDED' ? String(error.details['limit']) : undefined);
    if (limit !== undefined) await this.#rt.fire('limit', [whenOfLimit(limit)]);
    else if (ending.status === 'budget_denied')
      await this.#rt.fire('limit', budgetWhens(this.#rt.threadId, error.details['account']));
    else if (ending.status === 'error' && !this.#firedOn.has(error)) await this.#onError(error);
  }

  /** `after_complete`, after the terminal event and its checkpoint; true when any fired. */
  async afterComplete(): Promise<boolean> {
    if (!this.#rt.has('after_complete')) return false;
    await this.#rt.fire('after_complete');
    return true;
  }

  async #onError(error: RyeError): Promise<'retry' | 'fail' | undefined> {
    this.#firedOn.add(error);
    let decision: 'retry' | 'fail' | undefined;
    for (const hook of this.#rt.hooksOf('error')) {
      if (this.#rt.cancelled) break;
      const result = await this.#rt.fireOne(hook);
      if (hook.resultMode !== 'control') continue;
      const control = this.#rt.control(hook, 'error', result);
      if (control !== undefined && decision !== 'fail') decision = control.action;
    }
    return decision;
  }
}
