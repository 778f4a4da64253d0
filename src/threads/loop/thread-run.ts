import { RyeError, isRyeError } from '../../errors/index.js';
import type { Signer } from '../../integrity/index.js';
import type { BudgetStore, ModelPricing } from '../budget/index.js';
import type { ContentPart, Message } from '../conversation/index.js';
import { admittedHookRecord, type ReturnSchema } from '../directive/index.js';
import { ThreadHooks, type HookHost } from '../hooks/index.js';
import { type Clock, type RandomSource } from '../../ids/index.js';
import type { OperationContext } from '../../ops/index.js';
import type { DirectivePlan } from '../admission/index.js';
import type { ProviderClient, ProviderResponse, RetryPolicy } from '../providers/index.js';
import type { RegistryDb, threadPaths } from '../store/index.js';
import type { ThreadRecord } from '../store/index.js';
import type { TranscriptWriter } from '../transcript/index.js';
import type { ThreadCost } from '../transcript/index.js';
import { endAtLimit, endWithoutCalls, RETURN_REMINDER, type Ending } from './ending.js';
import { callProvider, type ProviderTurnContext } from './provider-turn.js';
import { RequestBody, fitWindow } from './request-body.js';
import { RunLimits } from './run-limits.js';
import { RunningCost } from './running-cost.js';
import { threadDispatchOf } from './call-context.js';
import type { ThreadLinks } from './tree-links.js';
import type { ThreadResult } from './thread-result.js';
import { ToolCalls } from './tool-calls.js';
import { appendTerminal, finalRecordOf, terminalOf, writeEnding } from './finalize.js';

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
  readonly #calls: ToolCalls;
  readonly #abort = new AbortController();
  #cancelled: RyeError | undefined;
  readonly #limits: RunLimits;
  readonly #cost = new RunningCost();
  readonly #body: RequestBody;
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
    this.#calls = new ToolCalls({
      writer: this.writer,
      cost: this.#cost,
      limits: input.plan.limits,
      dispatch,
      body: this.#body,
      threadId: this.threadId,
      returnSchema: input.returnSchema,
      inputs: input.plan.inputs,
      progress: (line) => this.#progress(line),
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
      const ending = calls.length === 0 ? this.#noCalls(response) : await this.#calls.run(calls);
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
    const store = {
      threadId: this.threadId,
      signer,
      clock: this.clock,
      registry: this.registry,
      progress: (line: string) => this.#progress(line),
    };
    return await writeEnding(store, paths, this.record, terminal, cost);
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
