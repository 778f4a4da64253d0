/**
 * Scripts for the scripted provider: plain data (JSON-able, so a recorded
 * live run can become one). Each entry matches conversations by the
 * directive named in the system prompt and by the first user message; each
 * conversation keeps its own cursor into the entry's turns, so parallel
 * children replay deterministically whatever order their requests arrive in.
 */

/** A reply the model gives. Family-neutral: the server renders it per wire format. */
export interface ScriptReply {
  readonly text?: string;
  readonly tool_calls?: readonly ScriptToolCall[];
  /** Neutral stop reason (`end_turn`, `tool_use`, `max_tokens`, `refusal`); default from the content. */
  readonly stop_reason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal';
  /** Token counts to report; `missing` sends none; default: an estimate from the bytes. */
  readonly usage?: ScriptUsage | 'missing';
  /** Overrides the message id (to test duplicates and garbage). */
  readonly message_id?: string;
}

export interface ScriptToolCall {
  readonly name: string;
  readonly input?: Readonly<Record<string, unknown>>;
  /** Argument text sent verbatim instead of `JSON.stringify(input)` (malformed JSON, arrays…). */
  readonly raw_arguments?: string;
  /** Default: a deterministic id from the conversation, turn and position. */
  readonly id?: string;
}

export interface ScriptUsage {
  readonly in: number;
  readonly out: number;
  readonly cache_r?: number;
  readonly cache_w?: number;
}

/** A failure the provider shows instead of (or in the middle of) an answer. */
export type ScriptFault =
  /** Any status with the family's error body; `retry_after` becomes the header. */
  | {
      readonly fault: 'status';
      readonly status: number;
      readonly error_type?: string;
      readonly error_code?: string;
      readonly message?: string;
      readonly retry_after?: string;
      readonly retry_after_ms?: string;
    }
  /** 429 rate limit with `retry-after: <seconds>`. */
  | {
      readonly fault: 'rate_limit';
      readonly retry_after?: string;
      readonly retry_after_ms?: string;
    }
  /** 529 overloaded_error (Anthropic) / 503 (OpenAI has no 529). */
  | { readonly fault: 'overloaded' }
  /** 500 api_error / server_error. */
  | { readonly fault: 'server_error' }
  /** Quota exhausted: 402 billing_error (Anthropic) / 429 insufficient_quota (OpenAI). */
  | { readonly fault: 'quota' }
  /** 401 (a key the provider refuses). */
  | { readonly fault: 'auth' }
  /** The socket is destroyed: before the response, or after `after_events` SSE events of `reply`. */
  | { readonly fault: 'reset'; readonly after_events?: number; readonly reply?: ScriptReply }
  /** A 200 stream that stops after `after_events` events of `reply` and never ends (deadlines, cancels). */
  | { readonly fault: 'stall'; readonly after_events?: number; readonly reply?: ScriptReply }
  /** A 200 stream that carries an SSE error after `after_events` events of `reply`. */
  | {
      readonly fault: 'sse_error';
      readonly after_events?: number;
      readonly error_type?: string;
      readonly reply?: ScriptReply;
    };

export type ScriptTurn = ScriptReply | ScriptFault;

export interface ScriptMatch {
  /** The directive name the system prompt declares (`<directive name="…">`). */
  readonly directive?: string;
  readonly system_includes?: string;
  /** The first user message's text, exactly. */
  readonly first_user?: string;
  readonly first_user_includes?: string;
}

export interface ScriptEntry {
  /** Every field given must match; no `match` matches every conversation. */
  readonly match?: ScriptMatch;
  readonly turns: readonly ScriptTurn[];
}

export function isFault(turn: ScriptTurn): turn is ScriptFault {
  return 'fault' in turn;
}

/** What the server learnt about a request's conversation. */
export interface ConversationView {
  readonly system: string;
  readonly firstUser: string;
}

const DIRECTIVE_NAME = /<directive\s+name="([^"]{1,200})"/;

/** The directive name a system prompt declares, or null. */
export function directiveNameOf(system: string): string | null {
  return DIRECTIVE_NAME.exec(system)?.[1] ?? null;
}

/** A conversation's identity: its directive (or whole system prompt) and first user message. */
export function conversationKey(view: ConversationView): string {
  return `${directiveNameOf(view.system) ?? view.system}\n${view.firstUser}`;
}

export function matches(match: ScriptMatch | undefined, view: ConversationView): boolean {
  if (match === undefined) return true;
  if (match.directive !== undefined && directiveNameOf(view.system) !== match.directive)
    return false;
  if (match.system_includes !== undefined && !view.system.includes(match.system_includes))
    return false;
  if (match.first_user !== undefined && view.firstUser !== match.first_user) return false;
  if (
    match.first_user_includes !== undefined &&
    !view.firstUser.includes(match.first_user_includes)
  )
    return false;
  return true;
}

/** The next turn for a conversation, advancing its cursor; a string says why there is none. */
export class ScriptBook {
  private readonly cursors = new Map<string, number>();

  constructor(private readonly entries: readonly ScriptEntry[]) {}

  next(view: ConversationView): { turn: ScriptTurn; index: number; key: string } | string {
    const key = conversationKey(view);
    const entry = this.entries.find((e) => matches(e.match, view));
    if (entry === undefined)
      return `no script entry matches the conversation ${JSON.stringify(key.slice(0, 200))}`;
    const index = this.cursors.get(key) ?? 0;
    const turn = entry.turns[index];
    if (turn === undefined)
      return `the script ran out after ${index} turns for the conversation ${JSON.stringify(key.slice(0, 200))}`;
    this.cursors.set(key, index + 1);
    return { turn, index, key };
  }

  /** Turns consumed per conversation key. */
  consumed(): ReadonlyMap<string, number> {
    return this.cursors;
  }
}
