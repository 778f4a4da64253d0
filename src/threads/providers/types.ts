/**
 * The provider-neutral request and response an adapter translates to and from
 * one wire format (THREADS.md §7). Adapters own no retry and no budget: one
 * `send` is one HTTP request, which the harness reserved for beforehand.
 */
import type { ContentPart, Message, ToolDefinition, Usage } from '../conversation/index.js';

/** The wire formats a descriptor may name. */
export const PROVIDER_FAMILIES = ['anthropic_messages', 'openai_chat'] as const;
export type ProviderFamily = (typeof PROVIDER_FAMILIES)[number];

/** One provider request: the whole conversation so far, the tools offered and the output cap. */
export interface ProviderRequest {
  readonly model: string;
  readonly system: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  /** The output cap the budget afforded (THREADS.md §6), sent as the request's maximum. */
  readonly max_tokens: number;
}

/** Why the model stopped, across both families. */
export type StopReason =
  'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'other';

/**
 * One response, normalised. `content` is built from the finished stream only,
 * never from the deltas reported to `onProgress`, so nothing lands twice.
 */
export interface ProviderResponse {
  readonly content: readonly ContentPart[];
  readonly stop_reason: StopReason;
  /** The provider's own stop reason, as it was on the wire (`null` when it sent none). */
  readonly provider_stop_reason: string | null;
  /** Absent when the provider sent none or sent values that are not counts (the budget then charges its reservation). */
  readonly usage?: Usage;
  /** Why `usage` is absent. */
  readonly usage_problem?: 'missing' | 'malformed';
  readonly provider_msg_id: string;
  /** The model the provider says answered. */
  readonly model: string;
}

/** Streaming deltas, for progress display only (never transcript, never content). */
export type ProviderProgress =
  | { readonly type: 'text_delta'; readonly index: number; readonly text: string }
  | {
      readonly type: 'tool_call_delta';
      readonly index: number;
      readonly id?: string;
      readonly name?: string;
      readonly arguments_delta: string;
    };

/** Per-request options: cancellation, the deadline and progress. */
export interface SendOptions {
  /** Aborts the in-flight request (cancel, deadline, interrupt). */
  readonly signal?: AbortSignal;
  /** Absolute deadline in epoch milliseconds; the request's timeout is what is left of it. */
  readonly deadline?: number;
  /** The clock the deadline is read against (injectable for tests). */
  readonly now?: () => number;
  readonly onProgress?: (event: ProviderProgress) => void;
}

/** An adapter bound to one resolved provider endpoint and credential. */
export interface ProviderClient {
  readonly family: ProviderFamily;
  /**
   * Send one request and return the normalised response.
   *
   * @throws RyeError PROVIDER_AUTH_FAILED, PROVIDER_QUOTA_EXCEEDED,
   *   PROVIDER_REQUEST_REJECTED, PROVIDER_REQUEST_FAILED (`details.retryable`),
   *   PROVIDER_RESPONSE_INVALID, PROVIDER_REQUEST_ABORTED
   */
  send(request: ProviderRequest, options?: SendOptions): Promise<ProviderResponse>;
}
