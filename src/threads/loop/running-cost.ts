/**
 * The runner's totals, kept through every phase of a turn: turns answered,
 * tokens, spend, tool calls (nested calls included) and children started
 * (THREADS.md §5). Each change replaces the totals and never edits them, so
 * totals read earlier (an event's `cost`, a record) stay as they were.
 */
import { ZERO_COST, type ThreadCost } from '../transcript/index.js';

/** One thread's running totals. */
export class RunningCost {
  #cost: ThreadCost = { ...ZERO_COST };

  /** The totals now. */
  get value(): ThreadCost {
    return this.#cost;
  }

  /** Take over a resumed thread's totals, rebuilt from its transcript. */
  restore(cost: ThreadCost): void {
    this.#cost = { ...cost };
  }

  /** Add a settled or released charge and, when priced from usage, its tokens. */
  charge(nanos: number, usage: { in: number; out: number } | null): void {
    this.#cost = {
      ...this.#cost,
      spend_nanos: this.#cost.spend_nanos + nanos,
      tokens_in: this.#cost.tokens_in + (usage?.in ?? 0),
      tokens_out: this.#cost.tokens_out + (usage?.out ?? 0),
    };
  }

  /** Count one turn the model answered; returns the new count. */
  countTurn(): number {
    this.#cost = { ...this.#cost, turns: this.#cost.turns + 1 };
    return this.#cost.turns;
  }

  /** Count one attempted tool call or nested call; returns the new count. */
  countToolCall(): number {
    this.#cost = { ...this.#cost, tool_calls: this.#cost.tool_calls + 1 };
    return this.#cost.tool_calls;
  }

  /** Count one child started (hook children included); returns the new count. */
  countSpawn(): number {
    this.#cost = { ...this.#cost, spawns: this.#cost.spawns + 1 };
    return this.#cost.spawns;
  }
}
