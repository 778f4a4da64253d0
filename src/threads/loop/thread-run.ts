/**
 * The runner's orchestrator: `ThreadRun` holds what a thread's phases share
 * and runs them in order (THREADS.md §2). Opening (opening.ts); each turn, the
 * limits (run-limits.ts), the request (request-body.ts), the provider
 * (provider-turn.ts), the tool calls (tool-calls.ts) or an ending without
 * calls (ending.ts), a checkpoint; then finalizing (finalize.ts).
 */
import { RyeError, isRyeError } from '../../errors/index.js';
import type { Clock, RandomSource } from '../../ids/index.js';
import type { Signer } from '../../integrity/index.js';
import type { OperationContext } from '../../ops/index.js';
import type { DirectivePlan } from '../admission/index.js';
import type { BudgetStore, ModelPricing } from '../budget/index.js';
import type { ContentPart } from '../conversation/index.js';
import type { ReturnSchema } from '../directive/index.js';
import { ThreadHooks, type HookHost } from '../hooks/index.js';
import type { ProviderClient, ProviderResponse, RetryPolicy } from '../providers/index.js';
import type { RegistryDb, ThreadRecord, threadPaths } from '../store/index.js';
import type { ThreadCost, TranscriptWriter } from '../transcript/index.js';
import { threadDispatchOf } from './call-context.js';
import { followCancelSignal } from './cancel-watch.js';
import { endAtLimit, endWithoutCalls, RETURN_REMINDER, type Ending } from './ending.js';
import { appendTerminal, finalRecordOf, terminalOf, writeEnding } from './finalize.js';
import { openThread, reopenThread, type ResumePoint } from './opening.js';
import { callProvider, type ProviderTurnContext } from './provider-turn.js';
import { RequestBody, fitWindow } from './request-body.js';
import type { RunContext } from './run-context.js';
import { RunLimits } from './run-limits.js';
import { RunningCost } from './running-cost.js';
import type { ThreadResult } from './thread-result.js';
import { ToolCalls } from './tool-calls.js';
import type { ThreadLinks } from './tree-links.js';

export type { Ending } from './ending.js';
export type { ResumePoint } from './opening.js';
export { MAX_CONSECUTIVE_DENIALS, TOOL_CONCURRENCY } from './tool-calls.js';

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

/**
 * One thread's loop: the state its phases share, and the order they run in.
 * Each turn: cancelled or at a limit → end; the window hooks; the provider;
 * then the answer's tool calls, or an ending without calls; a checkpoint.
 */
export class ThreadRun implements RunState {
  readonly threadId: string;
  readonly clock: Clock;
  readonly pricing: ModelPricing;
  readonly registry: RegistryDb;
  readonly budget: BudgetStore;
  record: ThreadRecord;
  readonly writer: TranscriptWriter;
  readonly #input: RunThreadInput;
  readonly #abort = new AbortController();
  #cancelled: RyeError | undefined;
  #reminded = false;
  #turnKey = 0;
  readonly #resume: ResumePoint | undefined;
  readonly #links: ThreadLinks | undefined;
  readonly #cost = new RunningCost();
  readonly #run: RunContext;
  readonly #hooks: ThreadHooks;
  readonly #provider: ProviderTurnContext;
  readonly #calls: ToolCalls;

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
    this.#run = {
      threadId: this.threadId,
      writer: this.writer,
      cost: this.#cost,
      limits: new RunLimits(input.plan.limits, state.clock, state.inheritedDeadline),
      body: new RequestBody(input.plan),
      progress: (line) => input.onProgress?.(line),
    };
    const links = (this.#links = state.links?.(this));
    const dispatch = threadDispatchOf(input, this.threadId, this.#abort.signal, links);
    this.#hooks = new ThreadHooks({
      threadId: this.threadId,
      hooks: input.plan.hooks,
      writer: this.writer,
      ops: dispatch.ops,
      host: input.hookHost?.(this),
      lineage: () => ({
        depth: this.record.depth,
        spawns: this.#cost.value.spawns,
        limits: input.plan.limits,
      }),
    });
    this.#provider = {
      ...this.#run,
      clock: this.clock,
      budget: this.budget,
      pricing: this.pricing,
      client: input.client,
      signal: this.#abort.signal,
      retryPolicy: input.retryPolicy,
      hooks: this.#hooks,
    };
    this.#calls = new ToolCalls({
      ...this.#run,
      dispatch,
      returnSchema: input.returnSchema,
      inputs: input.plan.inputs,
    });
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
    return this.#run.limits.deadline;
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
      { reason },
    );
    this.#abort.abort(this.#cancelled);
    this.#hooks.cancel(this.#cancelled);
  }

  async run(paths: ReturnType<typeof threadPaths>): Promise<ThreadResult> {
    const unfollow = followCancelSignal(this.#input.signal, (reason) => this.cancel(reason));
    const disarm = this.#run.limits.arm(this.#abort, this.threadId);
    let ending: Ending;
    try {
      if (this.#resume === undefined) {
        openThread(this.#run, this.#input.plan, this.record);
        this.#run.body.note(await this.#hooks.started());
      } else this.#turnKey = reopenThread(this.#run, this.#resume);
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
      unfollow();
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

  async #loop(paths: ReturnType<typeof threadPaths>): Promise<Ending> {
    const { body, limits } = this.#run;
    for (;;) {
      if (this.#cancelled !== undefined) return { status: 'cancelled', error: this.#cancelled };
      const hit = limits.beforeCall(this.#cost.value);
      if (hit !== null) return endAtLimit(this.writer, hit);
      const exhausted = await fitWindow(this.#hooks, body, this.#input.plan, paths);
      if (exhausted !== undefined) return { status: 'error', error: exhausted };
      const turn = await callProvider(this.#provider, this.#turnKey++);
      if ('retry' in turn) continue;
      if ('ending' in turn) return turn.ending;
      const calls = turn.response.content.filter(
        (p): p is Extract<ContentPart, { type: 'tool_call' }> => p.type === 'tool_call',
      );
      const ending =
        calls.length === 0 ? this.#noCalls(turn.response) : await this.#calls.run(calls);
      if (ending === null) body.note(await this.#hooks.afterStep());
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
    this.#run.body.push({ role: 'user', content: [{ type: 'text', text: RETURN_REMINDER }] });
    return null;
  }

  #checkpoint(): void {
    this.writer.checkpoint(this.#input.signer);
  }

  /** Finalizing: children settled, then the terminal event, its checkpoint, the record, the index. */
  async #finalize(paths: ReturnType<typeof threadPaths>, ending: Ending): Promise<ThreadResult> {
    await this.#links?.beforeFinalize(ending.status);
    const { signer } = this.#input;
    const terminal = terminalOf(ending);
    const cost = this.#cost.value;
    appendTerminal(this.writer, signer, terminal, cost);
    this.record = finalRecordOf(this.record, terminal, cost, this.clock.now());
    const store = { ...this.#run, signer, clock: this.clock, registry: this.registry };
    return await writeEnding(store, paths, this.record, terminal, cost);
  }
}
