import type { LIMIT_NAMES } from '../../items/index.js';

/**
 * The transcript's event envelope and payloads (THREADS.md §9). One event is
 * one line of `transcript.jsonl`:
 * `{"v":2,"seq":17,"ts":"…","thread":"…","type":"…","prev":"<hex>"|null,"payload":{…},"mac":"<hex>"}`,
 * `mac` the HMAC-SHA256 of the line without it under the thread's key
 * (`mac.ts`). A v1 line (no `mac`) is believed only under a checkpoint.
 */
export interface TranscriptEvent<T extends EventType = EventType> {
  readonly v: 1 | 2;
  readonly seq: number;
  /** ISO 8601 UTC with milliseconds, from the injected clock. */
  readonly ts: string;
  readonly thread: string;
  readonly type: T;
  /** Hex SHA-256 of the previous line's exact bytes (without `\n`); null at seq 0. */
  readonly prev: string | null;
  readonly payload: PayloadOf<T>;
  /** v2: the line's MAC, checked wherever no checkpoint covers the line. */
  readonly mac?: string;
}

/** The statuses a thread writes itself as its last event. */
export const TERMINAL_EVENT_TYPES = [
  'thread_completed',
  'thread_failed',
  'thread_error',
  'thread_budget_denied',
  'thread_cancelled',
  'thread_killed',
  'thread_continued',
] as const;
export type TerminalEventType = (typeof TERMINAL_EVENT_TYPES)[number];

export const EVENT_TYPES = [
  'thread_created',
  'system_prompt',
  'cognition_in',
  'budget',
  'cognition_out',
  'tool_call_start',
  'capability_denied',
  'tool_call_result',
  // A tool's request on the operation channel, under its tool call (CONTAINMENT.md §1.7).
  'nested_call',
  'child_spawned',
  'child_settled',
  'limit_hit',
  'hook_fired',
  'compaction',
  'repair',
  'checkpoint',
  // The operator set the thread's limits on resume (`--limit`), signed with the user key.
  'limits_set',
  ...TERMINAL_EVENT_TYPES,
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const EVENT_TYPE_SET: ReadonlySet<string> = new Set(EVENT_TYPES);
const TERMINAL_SET: ReadonlySet<string> = new Set(TERMINAL_EVENT_TYPES);

/** True for the v1 event types. */
export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && EVENT_TYPE_SET.has(value);
}

/** True for the `thread_<status>` types. */
export function isTerminalType(value: string): value is TerminalEventType {
  return TERMINAL_SET.has(value);
}

/** A thread's running totals, as `thread.json` and terminal events carry them. */
export interface ThreadCost {
  readonly turns: number;
  readonly tokens_in: number;
  readonly tokens_out: number;
  readonly spend_nanos: number;
  readonly tool_calls: number;
  readonly spawns: number;
}

export const ZERO_COST: ThreadCost = {
  turns: 0,
  tokens_in: 0,
  tokens_out: 0,
  spend_nanos: 0,
  tool_calls: 0,
  spawns: 0,
};

/** What `cognition_in` carries: text, or text parts. */
export type CognitionInContent =
  string | readonly { readonly type: 'text'; readonly text: string }[];

/** What `cognition_out` carries, as the model answered. */
export type CognitionOutPart =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'tool_call';
      readonly id: string;
      readonly name: string;
      readonly input: unknown;
    };

export interface ErrorInfo {
  readonly code: string;
  readonly message: string;
  readonly details?: unknown;
}

export interface Payloads {
  thread_created: {
    directive: { id: string; content_sha256: string; coverage: string };
    inputs: unknown;
    parent: string | null;
    tree: string;
    depth: number;
    caps: readonly string[];
    caps_dropped: readonly string[];
    token: { jti: string; exp: number } | null;
    limits: Readonly<Record<string, unknown>>;
    model: unknown;
    hooks_admitted: readonly unknown[];
  };
  system_prompt: { text: string };
  cognition_in: { content: CognitionInContent };
  budget: {
    op: 'reserve' | 'issue' | 'settle' | 'release' | 'deny';
    attempt_id: string;
    accounts: readonly string[];
    nanos: number;
    basis?: 'provider_usage' | 'reserved_max' | null;
    state?: string;
    /** Why an attempt ended without usage (`refused_http_500`, `PROVIDER_REQUEST_FAILED_after_issue`). */
    reason?: string | null;
  };
  cognition_out: {
    content: readonly CognitionOutPart[];
    stop_reason: string | null;
    usage: { in: number; out: number; cache_r?: number; cache_w?: number } | null;
    cost_nanos: number | null;
    provider_msg_id: string | null;
  };
  tool_call_start: { call_id: string; name: string; input: unknown; required_cap: string | null };
  capability_denied: { call_id: string; required: string };
  nested_call: {
    call_id: string;
    op: string;
    item_type: string | null;
    item_id: string | null;
    /** The code the request was refused with before it ran (a limit), when it was. */
    refused?: string;
  };
  tool_call_result: {
    call_id: string;
    ok: boolean;
    output?: unknown;
    error?: ErrorInfo;
    bytes: number;
    truncated: boolean;
  };
  child_spawned: {
    child: string;
    directive: string;
    caps_dropped: readonly string[];
    limits: unknown;
  };
  child_settled: { child: string; status: string; cost_nanos: number; outputs?: unknown };
  limit_hit: { limit: string; current: number; max: number };
  /**
   * One hook action run (THREADS.md §12): `directive` or `tool` names the
   * action; `outcome` is `ok`, `failed`, `denied` (capability check),
   * `skipped_limit` (spawn, depth or budget check), `invalid_control`
   * (outputs not matching the event's control schema) or `unavailable` (no
   * child threads in this process); `child` is a directive hook's thread.
   */
  hook_fired: {
    hook: number;
    event: string;
    when?: string;
    directive?: string;
    tool?: string;
    result_mode: string;
    outcome: string;
    child?: string;
    error?: ErrorInfo;
  };
  compaction: { replaces: readonly [number, number]; summary: string; by_thread: string | null };
  repair: {
    /** `ledger_raised`: resume raised a ledger account to what the transcripts committed on it. */
    kind: 'torn_tail' | 'dangling_calls' | 'ledger_raised';
    call_ids: readonly string[];
    dropped_bytes: number;
    /** `ledger_raised` only: the account, and its committed spend before, per the transcripts, after. */
    account?: string;
    ledger_nanos?: number;
    transcript_nanos?: number;
    committed_nanos?: number;
  };
  checkpoint: { head: string; seq: number; fp: string; sig: string };
  /** See limits-set.ts: every limit after and before, Ed25519 by the user key over `{limits, previous, seq, thread}`. */
  limits_set: LimitsSetPayload;
}

/** Every limit of a thread, as `thread.json` holds them: integers, and `spend` a decimal USD string. */
export type LimitsRecord = Readonly<Record<(typeof LIMIT_NAMES)[number], number | string>>;

/**
 * A `limits_set` event's payload: the operator set the thread's limits to
 * `limits` (every limit, resolved) from `previous`, signed with the user key.
 */
export interface LimitsSetPayload {
  readonly limits: LimitsRecord;
  readonly previous: LimitsRecord;
  readonly fp: string;
  readonly sig: string;
}

export type TerminalPayload = {
  outputs?: unknown;
  summary?: string;
  error?: ErrorInfo;
  successor?: string;
  cost: ThreadCost;
};

export type PayloadOf<T extends EventType> = T extends keyof Payloads
  ? Payloads[T]
  : T extends TerminalEventType
    ? TerminalPayload
    : never;

/** The payload of a stored event whose fields came back from artifacts. */
export type AnyPayload = Readonly<Record<string, unknown>>;

/** An event as read back from disk: the envelope checked, the payload a plain object. */
export interface StoredEvent {
  readonly v: 1 | 2;
  readonly seq: number;
  readonly ts: string;
  readonly thread: string;
  readonly type: EventType;
  readonly prev: string | null;
  readonly payload: AnyPayload;
  readonly mac?: string;
}
