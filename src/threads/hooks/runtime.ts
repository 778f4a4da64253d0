import { RyeError } from '../../errors/index.js';
import type { HookEvent, JsonValue } from '../../items/index.js';
import type { AdmittedHook } from '../directive/index.js';
import { resultText } from '../prompt/result-text.js';
import type { OperationContext } from '../../ops/index.js';
import type { TranscriptWriter } from '../transcript/index.js';
import { parseControl, type ControlEvent, type ControlOf } from './control.js';
import { runHookAction, type ActionResult, type HookLineage } from './fire.js';
import type { HookHost } from './host.js';
import { hooksFor } from './select.js';

export interface HookRuntimeInit {
  readonly threadId: string;
  readonly hooks: readonly AdmittedHook[];
  readonly writer: TranscriptWriter;
  /** The owner thread's operation context (its authority). */
  readonly ops: OperationContext;
  readonly host: HookHost | undefined;
  /** Read at fire time: the spawn checks use the record as it stands then. */
  readonly lineage: () => HookLineage;
}

/**
 * Fires a thread's admitted hooks (THREADS.md §12), in declaration order,
 * one at a time, each recorded as `hook_fired`. Knows nothing of the loop's
 * state: the loop calls it at its event points and applies what it returns.
 */
export class HookRuntime {
  readonly threadId: string;
  readonly writer: TranscriptWriter;
  readonly #init: HookRuntimeInit;
  // Hooks outlive the deadline (a duration_exceeded hook still runs); only a cancel stops them.
  readonly #abort = new AbortController();

  constructor(init: HookRuntimeInit) {
    this.#init = init;
    this.threadId = init.threadId;
    this.writer = init.writer;
  }

  /** True when any hook listens to `event`. */
  has(event: HookEvent): boolean {
    return this.#init.hooks.some((h) => h.event === event);
  }

  hooksOf(event: HookEvent, whens: readonly string[] = []): AdmittedHook[] {
    return hooksFor(this.#init.hooks, event, whens);
  }

  /** Stop running hooks: the owner was cancelled (running actions are aborted). */
  cancel(reason: unknown): void {
    this.#abort.abort(reason);
  }

  get cancelled(): boolean {
    return this.#abort.signal.aborted;
  }

  /** Run one hook's action and record it; `extra` inputs come first, the hook's own win. */
  async fireOne(
    hook: AdmittedHook,
    extra: Readonly<Record<string, JsonValue>> = {},
  ): Promise<ActionResult> {
    const result = await runHookAction(
      hook,
      { ...extra, ...hook.inputs },
      {
        ops: { ...this.#init.ops, signal: this.#abort.signal },
        host: this.#init.host,
        lineage: this.#init.lineage(),
      },
    );
    if (result.outcome !== 'ok' || hook.resultMode !== 'control') this.record(hook, result);
    return result;
  }

  /**
   * Fire every hook of `event` (matching `whens`) in `discard` or
   * `observation` mode; observations become `cognition_in` notes, returned
   * for the loop to add to the next request.
   */
  async fire(event: HookEvent, whens: readonly string[] = []): Promise<string[]> {
    const notes: string[] = [];
    for (const hook of this.hooksOf(event, whens)) {
      if (this.cancelled) break;
      const result = await this.fireOne(hook);
      if (hook.resultMode !== 'observation' || result.outcome !== 'ok') continue;
      const note = `[hook ${hook.event}: ${hook.action.itemId}]\n${resultText(result.value).text}`;
      this.writer.append('cognition_in', { content: note });
      notes.push(note);
    }
    return notes;
  }

  /**
   * The control value of a `control` hook's result, checked against its
   * event's schema; recorded as `ok`, or as `invalid_control` and ignored.
   */
  control<E extends ControlEvent>(
    hook: AdmittedHook,
    event: E,
    result: ActionResult,
  ): ControlOf[E] | undefined {
    if (result.outcome !== 'ok') return undefined;
    const checked = parseControl(event, result.value);
    if (checked.ok) {
      this.record(hook, result);
      return checked.value;
    }
    this.record(hook, {
      ...result,
      outcome: 'invalid_control',
      error: {
        code: 'THREAD_HOOK_CONTROL_INVALID',
        message: `The ${event} hook answered no valid control value: ${checked.problem}`,
      },
    });
    return undefined;
  }

  record(hook: AdmittedHook, result: ActionResult): void {
    this.writer.append('hook_fired', {
      hook: hook.index,
      event: hook.event,
      ...(hook.when === undefined ? {} : { when: hook.when }),
      ...(hook.action.kind === 'tool'
        ? { tool: hook.action.itemId }
        : { directive: hook.action.itemId }),
      result_mode: hook.resultMode,
      outcome: result.outcome,
      ...(result.child === undefined ? {} : { child: result.child }),
      ...(result.error === undefined ? {} : { error: result.error }),
    });
  }
}

/** The error a thread ends with when its window overflows and nothing compacted it. */
export function contextExhausted(tokens: number, contextWindow: number): RyeError {
  return new RyeError(
    'THREAD_CONTEXT_EXHAUSTED',
    `Cannot send the next request: the conversation is about ${tokens} tokens and the context window holds ${contextWindow}`,
    { tokens, context_window: contextWindow },
  );
}
