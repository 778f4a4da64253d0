import { RyeError, isRyeError } from '../../errors/index.js';
import type { Signer } from '../../integrity/index.js';
import type { BudgetStore, ModelPricing } from '../budget/index.js';
import { authorityOf, compileCaps, parseCapability } from '../../capabilities/index.js';
import type { ContentPart, Message } from '../conversation/index.js';
import { admittedHookRecord, type ReturnSchema } from '../directive/index.js';
import { ThreadHooks, type HookHost } from '../hooks/index.js';
import { type Clock, type RandomSource } from '../../ids/index.js';
import type { OperationContext } from '../../ops/index.js';
import type { DirectivePlan } from '../admission/index.js';
import type { ProviderClient, ProviderResponse, RetryPolicy } from '../providers/index.js';
import type { RegistryDb, threadPaths } from '../store/index.js';
import { writeThreadRecord, type ThreadRecord, type ThreadStatus } from '../store/index.js';
import type { TranscriptWriter } from '../transcript/index.js';
import type { ErrorInfo, ThreadCost } from '../transcript/index.js';
import {
  endAtLimit,
  endOnReturn,
  endWithoutCalls,
  RETURN_REMINDER,
  type Ending,
} from './ending.js';
import { callProvider, type ProviderTurnContext } from './provider-turn.js';
import { RequestBody, fitWindow } from './request-body.js';
import { RunLimits } from './run-limits.js';
import { RunningCost } from './running-cost.js';
import {
  dispatchCall,
  predictDenied,
  requiredCapOf,
  type DispatchContext,
  type ToolCall,
} from './dispatch.js';
import { limitError, type LimitHit } from './limits-check.js';
import { resultText } from '../prompt/result-text.js';
import type { ThreadLinks } from './tree-links.js';
import { publicCost, type ThreadResult } from './thread-result.js';
import { mapInWindow } from './window.js';

/** Consecutive capability denials that end a thread (THREADS.md §5). */
export const MAX_CONSECUTIVE_DENIALS = 5;
/** Tool calls of one message run at most this many at once (THREADS.md §2). */
export const TOOL_CONCURRENCY = 4;

export interface RunThreadInput {
  /** The project root: the thread lives under `<root>/.ai/threads/`. */
  readonly projectRoot: string;
  /** The operator's context (spaces, env); the thread's own authority replaces its authority. */
  readonly ops: OperationContext;
  /** The admitted plan; its model must be resolved. */
  readonly plan: DirectivePlan;
  /** From the same verified directive as the plan; undefined when it declares no outputs. */
  readonly returnSchema: ReturnSchema | undefined;
  readonly client: ProviderClient;
  /** The user key: signs thread.json and the checkpoints. */
  readonly signer: Signer;
  readonly clock?: Clock;
  /**
   * Where thread ids and token ids draw their random bits (default: node:crypto).
   * Injected with `clock`, a rerun writes byte-identical transcripts (THREADS.md §15).
   */
  readonly random?: RandomSource;
  /** A ledger other than registry.db's (benchmarks use the memory store). */
  readonly budget?: BudgetStore;
  readonly retryPolicy?: Partial<RetryPolicy>;
  /** Progress lines for a terminal (turns, calls and outcomes, running cost). */
  readonly onProgress?: (line: string) => void;
  /**
   * Cancels the thread (THREADS.md §11): the in-flight request is aborted,
   * running tools get SIGTERM then SIGKILL after the grace, and the thread
   * ends `cancelled` (a string reason is recorded).
   */
  readonly signal?: AbortSignal;
  /**
   * Runs `<directive>` hook actions as children of this run (THREADS.md §12);
   * without it such hooks are recorded `unavailable`.
   */
  readonly hookHost?: (run: ThreadRun) => HookHost;
}

export type { Ending } from './ending.js';

export interface RunState {
  readonly threadId: string;
  readonly clock: Clock;
  readonly pricing: ModelPricing;
  readonly registry: RegistryDb;
  readonly budget: BudgetStore;
  record: ThreadRecord;
  readonly writer: TranscriptWriter;
  /** Continue a rebuilt thread instead of starting one (THREADS.md §10 step 9). */
  readonly resume?: ResumePoint;
  /** An inherited absolute deadline (epoch ms): a child never outlives its parent's (THREADS.md §5). */
  readonly inheritedDeadline?: number;
  /** The thread's tree: its token, children and thread tools (THREADS.md §4, §11). */
  readonly links?: (run: ThreadRun) => ThreadLinks;
}

/** Where a resumed thread picks up: its rebuilt conversation and totals, and the new message. */
export interface ResumePoint {
  readonly messages: readonly Message[];
  readonly cost: ThreadCost;
  readonly message: string;
  /** The first turn number no attempt key used yet (keys are unique forever). */
  readonly nextTurnKey: number;
}

/** One thread's loop: the state the steps share. */
export class ThreadRun implements RunState {
  readonly threadId: string;
  readonly clock: Clock;
  readonly pricing: ModelPricing;
  readonly registry: RegistryDb;
  readonly budget: BudgetStore;
  record: ThreadRecord;
  readonly writer: TranscriptWriter;
  readonly #input: RunThreadInput;
  readonly #dispatch: DispatchContext;
  readonly #abort = new AbortController();
  #cancelled: RyeError | undefined;
  readonly #limits: RunLimits;
  readonly #cost = new RunningCost();
  readonly #body: RequestBody;
  #denials = 0;
  #reminded = false;
  #turnKey = 0;
  readonly #resume: ResumePoint | undefined;
  readonly #hooks: ThreadHooks;
  readonly #provider: ProviderTurnContext;
  readonly #links: ThreadLinks | undefined;

  constructor(input: RunThreadInput, state: RunState) {
    this.threadId = state.threadId;
    this.clock = state.clock;
    this.pricing = state.pricing;
    this.registry = state.registry;
    this.budget = state.budget;
    this.record = state.record;
    this.writer = state.writer;
    this.#input = input;
    this.#resume = state.resume;
    this.#body = new RequestBody(input.plan);
    this.#limits = new RunLimits(input.plan.limits, state.clock, state.inheritedDeadline);
    const caps = compileCaps(input.plan.capabilities.map((c) => parseCapability(c)));
    const links = (this.#links = state.links?.(this));
    this.#dispatch = {
      ops: {
        ...input.ops,
        // The thread's tools run narrowed to its <sandbox> (a resumed record may predate it).
        authority: authorityOf(caps, 'thread', input.plan.sandbox ?? undefined),
        signal: this.#abort.signal,
        ...(input.clock === undefined ? {} : { clock: input.clock }),
        // Thread tools then reach only this thread's descendants (THREADS.md §11).
        thread: this.threadId,
        ...(links === undefined ? {} : { tree: links.caller }),
      },
      offered: new Set(input.plan.tools.map((t) => t.name)),
      returnSchema: input.returnSchema,
      ...(links === undefined
        ? {}
        : {
            presentToken: () => links.presentToken(),
            spawn: async (spawnInput) => ({ ...(await links.spawn(spawnInput)), denied: false }),
          }),
    };
    this.#hooks = new ThreadHooks({
      threadId: this.threadId,
      hooks: input.plan.hooks,
      writer: this.writer,
      ops: this.#dispatch.ops,
      host: input.hookHost?.(this),
      lineage: () => ({
        depth: this.record.depth,
        spawns: this.#cost.value.spawns,
        limits: input.plan.limits,
      }),
    });
    this.#provider = {
      attempt: {
        budget: this.budget,
        writer: this.writer,
        threadId: this.threadId,
        pricing: this.pricing,
        client: input.client,
        signal: this.#abort.signal,
        deadline: this.#limits.deadline,
        now: () => this.clock.now(),
        charge: (nanos, usage) => this.#cost.charge(nanos, usage),
      },
      retryPolicy: input.retryPolicy,
      limits: this.#limits,
      cost: this.#cost,
      hooks: this.#hooks,
      progress: (line) => this.#progress(line),
    };
  }

  /** What the thread was started with (a child inherits the client, signer, clock and context). */
  get input(): RunThreadInput {
    return this.#input;
  }

  /** Aborts when the thread is cancelled or its deadline passes (its children follow it). */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** The absolute deadline in epoch ms, if any. */
  get deadline(): number | undefined {
    return this.#limits.deadline;
  }

  /** The running totals. */
  get cost(): ThreadCost {
    return this.#cost.value;
  }

  /** Count one child started (hook children included); returns the new count. */
  countSpawn(): number {
    return this.#cost.countSpawn();
  }

  /**
   * Cancel the thread: abort the in-flight provider request (an unissued
   * attempt is released, an issued one is charged its reservation) and the
   * running tools (SIGTERM, SIGKILL after the grace); the loop then ends with
   * status `cancelled` at its next step. Later calls change nothing.
   */
  cancel(reason: string): void {
    if (this.#cancelled !== undefined) return;
    this.#cancelled = new RyeError(
      'THREAD_CANCELLED',
      `Thread ${this.threadId} was cancelled: ${reason}`,
      {
        reason,
      },
    );
    this.#abort.abort(this.#cancelled);
    this.#hooks.cancel(this.#cancelled);
  }

  async run(paths: ReturnType<typeof threadPaths>): Promise<ThreadResult> {
    const external = this.#input.signal;
    const onCancel = (): void => this.cancel(reasonOf(external?.reason));
    if (external?.aborted === true) onCancel();
    else external?.addEventListener('abort', onCancel, { once: true });
    const disarm = this.#limits.arm(this.#abort, this.threadId);
    let ending: Ending;
    try {
      if (this.#resume === undefined) {
        this.#start();
        this.#body.note(await this.#hooks.started());
      } else this.#continue(this.#resume);
      ending = await this.#loop(paths);
    } catch (error) {
      if (!isRyeError(error)) {
        await this.#finalize(paths, {
          status: 'error',
          error: new RyeError('INTERNAL_ERROR', `The thread runner failed: ${String(error)}`, {}),
        }).catch(() => undefined);
        throw error;
      }
      ending = { status: 'error', error };
    } finally {
      disarm();
      external?.removeEventListener('abort', onCancel);
    }
    if (
      this.#cancelled !== undefined &&
      ending.status !== 'completed' &&
      ending.status !== 'failed'
    )
      ending = { status: 'cancelled', error: this.#cancelled };
    await this.#hooks.beforeEnd(ending);
    const result = await this.#finalize(paths, ending);
    if (ending.status === 'completed' && (await this.#hooks.afterComplete())) this.#checkpoint();
    return result;
  }

  #start(): void {
    const { plan } = this.#input;
    this.writer.append('thread_created', {
      directive: {
        id: plan.directive.id,
        content_sha256: plan.directive.content_sha256,
        coverage: 'full',
      },
      inputs: plan.inputs,
      parent: this.record.parent,
      tree: this.record.tree,
      depth: this.record.depth,
      caps: plan.capabilities,
      caps_dropped: plan.caps_dropped,
      token: this.record.token,
      limits: { ...plan.limits },
      model: plan.model,
      hooks_admitted: plan.hooks.map(admittedHookRecord),
    });
    this.writer.append('system_prompt', { text: plan.system_prompt });
    this.writer.append('cognition_in', { content: plan.first_message });
    this.#body.begin(plan.first_message);
    this.#progress(
      `thread ${this.threadId} started (${plan.model?.provider}/${plan.model?.model} at ${plan.model?.host})`,
    );
  }

  #continue(resume: ResumePoint): void {
    this.#cost.restore(resume.cost);
    this.#turnKey = resume.nextTurnKey;
    this.writer.append('cognition_in', { content: resume.message });
    this.#body.resume(resume.messages, resume.message);
    this.#progress(`thread ${this.threadId} resumed at turn ${this.#cost.value.turns + 1}`);
  }

  async #loop(paths: ReturnType<typeof threadPaths>): Promise<Ending> {
    for (;;) {
      if (this.#cancelled !== undefined) return { status: 'cancelled', error: this.#cancelled };
      const hit = this.#limits.beforeCall(this.#cost.value);
      if (hit !== null) return endAtLimit(this.writer, hit);
      const exhausted = await fitWindow(this.#hooks, this.#body, this.#input.plan, paths);
      if (exhausted !== undefined) return { status: 'error', error: exhausted };
      const turn = await callProvider(this.#provider, this.#body, this.#turnKey++);
      if ('retry' in turn) continue;
      if ('ending' in turn) return turn.ending;
      const { response } = turn;
      const calls = response.content.filter(
        (p): p is Extract<ContentPart, { type: 'tool_call' }> => p.type === 'tool_call',
      );
      const ending = calls.length === 0 ? this.#noCalls(response) : await this.#dispatchAll(calls);
      if (ending === null) this.#body.note(await this.#hooks.afterStep());
      this.#checkpoint();
      if (ending !== null) return ending;
    }
  }

  /** A turn without tool calls: done, or one reminder to return (THREADS.md §2 "ending"). */
  #noCalls(response: ProviderResponse): Ending | null {
    const { returnSchema, plan } = this.#input;
    const ending = endWithoutCalls(response, returnSchema, plan.directive.id, this.#reminded);
    if (ending !== null) return ending;
    this.#reminded = true;
    this.writer.append('cognition_in', { content: RETURN_REMINDER });
    this.#body.push({ role: 'user', content: [{ type: 'text', text: RETURN_REMINDER }] });
    return null;
  }

  /**
   * The dispatch context of one call: its tools' channel requests are
   * recorded as `nested_call` events under it and count toward `tool_calls`
   * (CONTAINMENT.md §1.7); past the limit they are refused.
   */
  #dispatchFor(callId: string): DispatchContext {
    const { limits } = this.#input.plan;
    const onNestedCall: NonNullable<OperationContext['onNestedCall']> = (request) => {
      const input = (
        typeof request.input === 'object' && request.input !== null ? request.input : {}
      ) as Record<string, unknown>;
      const attempts = this.#cost.countToolCall();
      const over = limits.tool_calls !== 0 && attempts > limits.tool_calls;
      const error = over
        ? limitError({ limit: 'tool_calls', current: attempts, max: limits.tool_calls })
        : null;
      this.writer.append('nested_call', {
        call_id: callId,
        op: request.op,
        item_type: typeof input['item_type'] === 'string' ? input['item_type'] : null,
        item_id: typeof input['item_id'] === 'string' ? input['item_id'].slice(0, 512) : null,
        ...(error === null ? {} : { refused: error.code }),
      });
      return error === null ? undefined : { code: error.code, message: error.message };
    };
    return { ...this.#dispatch, ops: { ...this.#dispatch.ops, onNestedCall } };
  }

  /** The calls of a message up to and including the one whose denial would stop the thread. */
  async #untilDenialStop(calls: readonly ToolCall[]): Promise<readonly ToolCall[]> {
    let run = this.#denials;
    for (const [i, call] of calls.entries()) {
      run = (await predictDenied(call, this.#dispatch)) ? run + 1 : 0;
      if (run >= MAX_CONSECUTIVE_DENIALS) return calls.slice(0, i + 1);
    }
    return calls;
  }

  /** Dispatching: every call gets exactly one result, in call order. */
  async #dispatchAll(calls: readonly ToolCall[]): Promise<Ending | null> {
    const { limits } = this.#input.plan;
    const serial = calls.some((c) => c.name === 'directive_return');
    let overLimit: LimitHit | null = null;
    // The five-denial stop is decided before anything runs: no call after the
    // stopping denial is dispatched (each is answered "not run" below).
    const dispatched = await this.#untilDenialStop(calls);
    const outcomes = await mapInWindow(dispatched, serial ? 1 : TOOL_CONCURRENCY, async (call) => {
      const required = requiredCapOf(call.name, call.input);
      this.writer.append('tool_call_start', {
        call_id: call.id,
        name: call.name,
        input: call.input,
        required_cap: required,
      });
      const attempts = this.#cost.countToolCall();
      if (limits.tool_calls !== 0 && attempts > limits.tool_calls) {
        overLimit = { limit: 'tool_calls', current: attempts, max: limits.tool_calls };
        const error = limitError(overLimit);
        return {
          result: { status: 'error' as const, error: { code: error.code, message: error.message } },
          denied: false,
        };
      }
      const outcome = await dispatchCall(call, this.#dispatchFor(call.id));
      if (outcome.denied)
        this.writer.append('capability_denied', {
          call_id: call.id,
          required: required ?? call.name,
        });
      return outcome;
    });
    const parts: ContentPart[] = [];
    let returned: Record<string, unknown> | undefined;
    let stopped = false;
    for (const [i, outcome] of outcomes.entries()) {
      const call = calls[i] as ToolCall;
      const ok = outcome.result.status === 'success';
      const shown = resultText(outcome.result);
      this.writer.append('tool_call_result', {
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
      if (outcome.limit !== undefined) overLimit ??= outcome.limit;
      this.#progress(
        `  ${call.name} ${describeTarget(call.input)} → ${ok ? 'ok' : outcome.result.status === 'error' ? outcome.result.error.code : ''}`,
      );
      // Every dispatched call ran: its result is recorded as it came, even after a
      // stop the prediction missed (a file changed between the two checks).
      if (this.#denials >= MAX_CONSECUTIVE_DENIALS) stopped = true;
    }
    // Every call is answered, even those never run after a stop, so the conversation stays resumable.
    for (const call of calls.slice(parts.length)) {
      const text = JSON.stringify({
        status: 'error',
        error: { code: 'THREAD_DENIED_REPEATEDLY', message: 'not run: the thread stopped' },
      });
      this.writer.append('tool_call_result', {
        call_id: call.id,
        ok: false,
        error: { code: 'THREAD_DENIED_REPEATEDLY', message: 'not run: the thread stopped' },
        bytes: text.length,
        truncated: false,
      });
      parts.push({ type: 'tool_result', call_id: call.id, ok: false, content: text });
    }
    this.#body.push({ role: 'user', content: parts });
    if (stopped)
      return {
        status: 'error',
        error: new RyeError(
          'THREAD_DENIED_REPEATEDLY',
          `Cannot continue the thread: ${MAX_CONSECUTIVE_DENIALS} calls in a row were outside its capabilities`,
          { denials: MAX_CONSECUTIVE_DENIALS },
        ),
      };
    if (overLimit !== null) return endAtLimit(this.writer, overLimit);
    if (returned !== undefined)
      return endOnReturn(
        returned,
        this.#input.returnSchema,
        this.#input.plan.inputs,
        this.threadId,
      );
    return null;
  }

  #checkpoint(): void {
    this.writer.checkpoint(this.#input.signer);
  }

  /** Finalizing: the terminal event, its checkpoint, the record, the index, the ledger. */
  async #finalize(paths: ReturnType<typeof threadPaths>, ending: Ending): Promise<ThreadResult> {
    const status: ThreadStatus = ending.status;
    await this.#links?.beforeFinalize(status);
    const error: ErrorInfo | undefined =
      'error' in ending
        ? { code: ending.error.code, message: ending.error.message, details: ending.error.details }
        : undefined;
    const outputs = 'outputs' in ending ? ending.outputs : undefined;
    const summary = 'summary' in ending ? ending.summary : undefined;
    const cost = this.#cost.value;
    this.writer.append(`thread_${status}` as 'thread_completed', {
      ...(outputs === undefined ? {} : { outputs }),
      ...(summary === undefined ? {} : { summary }),
      ...(error === undefined ? {} : { error }),
      cost,
    });
    this.#checkpoint();
    this.record = {
      ...this.record,
      status,
      updated_at: new Date(this.clock.now()).toISOString(),
      cost: { ...cost },
      ...(outputs === undefined ? {} : { outputs }),
      ...(error === undefined ? {} : { error }),
    };
    await writeThreadRecord(paths, this.record, this.#input.signer, new Date(this.clock.now()));
    this.registry.setCost(this.threadId, cost);
    this.registry.setStatus(this.threadId, status);
    this.#progress(
      `thread ${this.threadId} ${status}${error === undefined ? '' : ` (${error.code}: ${error.message})`}; ${cost.turns} turns, $${publicCost(cost).spend_usd}`,
    );
    return {
      ok: status === 'completed',
      status,
      thread_id: this.threadId,
      ...(outputs === undefined ? {} : { outputs }),
      ...(summary === undefined ? {} : { summary }),
      ...(error === undefined ? {} : { error }),
      cost: publicCost(cost),
    };
  }

  #progress(line: string): void {
    this.#input.onProgress?.(line);
  }
}

function reasonOf(reason: unknown): string {
  if (typeof reason === 'string' && reason !== '') return reason;
  if (reason instanceof Error && reason.message !== '') return reason.message;
  return 'cancelled by its caller';
}

function describeTarget(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const { item_type: t, item_id: id, query } = input as Record<string, unknown>;
  const target = typeof id === 'string' ? id : typeof query === 'string' ? `"${query}"` : '';
  return `${typeof t === 'string' ? t : ''} ${target.slice(0, 80)}`.trim();
}
