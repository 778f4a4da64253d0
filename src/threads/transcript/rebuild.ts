import { RyeError } from '../../errors/index.js';
import type { ContentPart, Message } from '../conversation/index.js';
import {
  ZERO_COST,
  isTerminalType,
  type AnyPayload,
  type StoredEvent,
  type TerminalEventType,
  type ThreadCost,
} from './event.js';

/** What a thread's transcript says about it, ready to continue. */
export interface RebuiltThread {
  readonly system: string | null;
  /** The conversation in seq order, compactions applied, same-role neighbours merged. */
  readonly messages: readonly Message[];
  /** Totals reseeded from the last terminal event plus everything after it. */
  readonly cost: ThreadCost;
  readonly terminal: {
    readonly type: TerminalEventType;
    readonly seq: number;
    readonly payload: AnyPayload;
  } | null;
  /** Attempts reserved or issued with no settle, release or deny after them (no usage evidence). */
  readonly openAttempts: readonly string[];
  readonly lastSeq: number;
  /** Oddities rebuild worked around, for `rye thread verify`. */
  readonly anomalies: readonly RebuildAnomaly[];
  /**
   * The conversation before merging, as the spans compaction replaces whole:
   * a user message, an assistant message with all its results, or a summary.
   */
  readonly units: readonly RebuiltUnit[];
}

/** Seqs `lo..hi` of the transcript that make `messages` together. */
export interface RebuiltUnit {
  readonly lo: number;
  readonly hi: number;
  readonly messages: readonly Message[];
}

export interface RebuildAnomaly {
  readonly seq: number;
  readonly kind: 'missing_result' | 'orphan_result' | 'empty_compaction';
  readonly callId?: string;
}

/** A span of events that becomes messages together; compaction replaces whole units. */
interface Unit {
  lo: number;
  hi: number;
  readonly messages: Message[];
}

interface Result {
  readonly seq: number;
  readonly part: ContentPart;
}

/**
 * The text a tool result shows the model: a string output as is, any other
 * output as JSON, an error as `{"error":{"code","message"}}`. The loop uses
 * the same function live, so a rebuilt conversation equals the one it had.
 * Pure.
 */
export function resultContent(payload: AnyPayload): string {
  if (payload['ok'] === true) {
    const output = payload['output'];
    return typeof output === 'string' ? output : JSON.stringify(output ?? null);
  }
  const error = (payload['error'] ?? {}) as Record<string, unknown>;
  return JSON.stringify({
    error: { code: error['code'] ?? 'UNKNOWN', message: error['message'] ?? '' },
  });
}

/**
 * Rebuild a thread from its verified events (artifacts resolved), in seq
 * order (THREADS.md §10 step 6). Tool results are paired with their calls by
 * `call_id`, wherever they sit, never by adjacency; a call without a result
 * gets a synthetic THREAD_INTERRUPTED one. A `compaction{replaces:[from,to]}`
 * replaces every unit (a user message, or an assistant message with all its
 * results) that overlaps the span, so a span is snapped outward to turn
 * boundaries and never splits a call from its result. Counters are the
 * whole history's: a terminal event's `cost` may raise one, never lower it. Pure.
 *
 * @throws RyeError TRANSCRIPT_INVALID naming the seq of an event whose payload
 *   is not what rye writes (malformed content, a reused call id, a bad span).
 */
export function rebuildThread(events: readonly StoredEvent[]): RebuiltThread {
  const results = collectResults(events);
  const used = new Set<string>();
  const seenCalls = new Set<string>();
  const callsMade = new Set<string>();
  const open = new Set<string>();
  const anomalies: RebuildAnomaly[] = [];
  const units: Unit[] = [];
  const cost: { -readonly [K in keyof ThreadCost]: number } = { ...ZERO_COST };
  let system: string | null = null;
  let terminal: RebuiltThread['terminal'] = null;

  const countCall = (id: unknown): void => {
    if (typeof id !== 'string' || seenCalls.has(id)) return;
    seenCalls.add(id);
    cost.tool_calls += 1;
  };

  for (const event of events) {
    const p = event.payload;
    switch (event.type) {
      case 'system_prompt':
        system = stringField(event, 'text');
        break;
      case 'cognition_in':
        units.push({
          lo: event.seq,
          hi: event.seq,
          messages: [{ role: 'user', content: inContent(event) }],
        });
        break;
      case 'cognition_out': {
        const content = outContent(event);
        cost.turns += 1;
        const usage = p['usage'] as Record<string, unknown> | null | undefined;
        if (typeof usage === 'object' && usage !== null) {
          cost.tokens_in += countOf(usage['in']);
          cost.tokens_out += countOf(usage['out']);
        }
        const unit: Unit = {
          lo: event.seq,
          hi: event.seq,
          messages: [{ role: 'assistant', content }],
        };
        const answers: ContentPart[] = [];
        for (const part of content) {
          if (part.type !== 'tool_call') continue;
          if (callsMade.has(part.id))
            throw invalid(event.seq, `call id ${part.id} was used before`);
          callsMade.add(part.id);
          const result = results.get(part.id);
          if (result !== undefined && result.seq > event.seq) {
            used.add(part.id);
            unit.hi = Math.max(unit.hi, result.seq);
            answers.push(result.part);
          } else {
            anomalies.push({ seq: event.seq, kind: 'missing_result', callId: part.id });
            answers.push(interrupted(part.id));
          }
        }
        if (answers.length > 0) unit.messages.push({ role: 'user', content: answers });
        units.push(unit);
        break;
      }
      case 'tool_call_start':
      case 'capability_denied':
      case 'tool_call_result':
        countCall(p['call_id']);
        break;
      case 'nested_call':
        // Each channel request counts as a call of its own (its seq makes it one).
        countCall(`nested:${event.seq}`);
        break;
      case 'child_spawned':
        cost.spawns += 1;
        break;
      case 'budget':
        applyBudget(event, open, cost);
        break;
      case 'compaction':
        compact(event, units, anomalies);
        break;
      default:
        if (isTerminalType(event.type)) {
          // A terminal event's totals can raise a counter (spend a child
          // rolled up), never lower one: no later event resets what happened.
          const ended = costOf(event);
          for (const key of Object.keys(cost) as (keyof ThreadCost)[])
            cost[key] = Math.max(cost[key], ended[key]);
          terminal = { type: event.type, seq: event.seq, payload: p };
        }
    }
  }
  for (const [callId, result] of results) {
    if (!used.has(callId)) anomalies.push({ seq: result.seq, kind: 'orphan_result', callId });
  }
  return {
    system,
    messages: mergeRoles(units.flatMap((u) => u.messages)),
    cost,
    terminal,
    openAttempts: [...open],
    lastSeq: events.length === 0 ? -1 : (events[events.length - 1]?.seq ?? -1),
    anomalies,
    units: units.map((u) => ({ lo: u.lo, hi: u.hi, messages: u.messages })),
  };
}

function collectResults(events: readonly StoredEvent[]): Map<string, Result> {
  const results = new Map<string, Result>();
  for (const event of events) {
    if (event.type !== 'tool_call_result') continue;
    const callId = stringField(event, 'call_id');
    if (typeof event.payload['ok'] !== 'boolean') throw invalid(event.seq, 'ok is not a boolean');
    if (results.has(callId)) continue;
    results.set(callId, {
      seq: event.seq,
      part: {
        type: 'tool_result',
        call_id: callId,
        ok: event.payload['ok'],
        content: resultContent(event.payload),
      },
    });
  }
  return results;
}

function applyBudget(event: StoredEvent, open: Set<string>, cost: { spend_nanos: number }): void {
  const op = event.payload['op'];
  const attempt = stringField(event, 'attempt_id');
  if (op === 'reserve' || op === 'issue') open.add(attempt);
  else if (op === 'settle' || op === 'release' || op === 'deny') open.delete(attempt);
  else throw invalid(event.seq, `budget op ${String(op)} is unknown`);
  const nanos = event.payload['nanos'];
  if (op === 'settle') {
    if (!isCount(nanos)) throw invalid(event.seq, 'a settle has no nanos');
    cost.spend_nanos += nanos;
  }
  // A release commits what the ledger charged (the reservation once the
  // request left, 0 for a refusal), which counts as a settle does.
  if (op === 'release' && isCount(nanos)) cost.spend_nanos += nanos;
}

function compact(event: StoredEvent, units: Unit[], anomalies: RebuildAnomaly[]): void {
  const span = event.payload['replaces'];
  const summary = stringField(event, 'summary');
  const [from, to] = Array.isArray(span) ? (span as unknown[]) : [];
  if (!isCount(from) || !isCount(to) || from > to || to >= event.seq) {
    throw invalid(event.seq, 'replaces is not a span [from, to] of earlier seqs');
  }
  const first = units.findIndex((u) => u.lo <= to && u.hi >= from);
  if (first < 0) {
    anomalies.push({ seq: event.seq, kind: 'empty_compaction' });
    return;
  }
  let last = first;
  while (last + 1 < units.length && (units[last + 1]?.lo ?? Infinity) <= to) last += 1;
  const removed = units.splice(first, last - first + 1);
  let lo = Infinity;
  let hi = -Infinity;
  for (const unit of removed) {
    lo = Math.min(lo, unit.lo);
    hi = Math.max(hi, unit.hi);
  }
  units.splice(first, 0, {
    lo,
    hi,
    messages: [{ role: 'user', content: [{ type: 'text', text: summary }] }],
  });
}

/**
 * Same-role neighbours merged into one message, as providers require roles to
 * alternate; the live loop merges hook notes the same way. Pure.
 */
export function mergeRoles(messages: readonly Message[]): Message[] {
  const merged: { role: Message['role']; content: ContentPart[] }[] = [];
  for (const message of messages) {
    const last = merged[merged.length - 1];
    if (last !== undefined && last.role === message.role) last.content.push(...message.content);
    else merged.push({ role: message.role, content: [...message.content] });
  }
  return merged;
}

function inContent(event: StoredEvent): ContentPart[] {
  const content = event.payload['content'];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (Array.isArray(content) && content.every((part) => isTextPart(part))) {
    return content.map((part: { text: string }) => ({ type: 'text', text: part.text }));
  }
  throw invalid(event.seq, 'cognition_in content is neither text nor text parts');
}

function outContent(event: StoredEvent): ContentPart[] {
  const content = event.payload['content'];
  if (!Array.isArray(content)) throw invalid(event.seq, 'cognition_out content is not a list');
  return content.map((part: unknown): ContentPart => {
    if (isTextPart(part)) return { type: 'text', text: part.text };
    const call = part as Record<string, unknown>;
    if (
      typeof part === 'object' &&
      part !== null &&
      call['type'] === 'tool_call' &&
      typeof call['id'] === 'string' &&
      call['id'] !== '' &&
      typeof call['name'] === 'string'
    ) {
      return {
        type: 'tool_call',
        id: call['id'],
        name: call['name'],
        input: call['input'] ?? null,
      };
    }
    throw invalid(event.seq, 'cognition_out holds a part that is neither text nor tool_call');
  });
}

function costOf(event: StoredEvent): ThreadCost {
  const cost = event.payload['cost'] as Record<string, unknown> | undefined;
  const keys = Object.keys(ZERO_COST) as (keyof ThreadCost)[];
  if (typeof cost !== 'object' || cost === null || !keys.every((k) => isCount(cost[k]))) {
    throw invalid(event.seq, 'the terminal event has no valid cost');
  }
  return Object.fromEntries(keys.map((k) => [k, cost[k]])) as unknown as ThreadCost;
}

function interrupted(callId: string): ContentPart {
  const payload = {
    ok: false,
    error: { code: 'THREAD_INTERRUPTED', message: 'The call never returned a result' },
  };
  return { type: 'tool_result', call_id: callId, ok: false, content: resultContent(payload) };
}

function isTextPart(part: unknown): part is { type: 'text'; text: string } {
  return (
    typeof part === 'object' &&
    part !== null &&
    (part as { type?: unknown }).type === 'text' &&
    typeof (part as { text?: unknown }).text === 'string'
  );
}

function stringField(event: StoredEvent, key: string): string {
  const value = event.payload[key];
  if (typeof value === 'string') return value;
  throw invalid(event.seq, `${event.type}.${key} is not a string`);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function countOf(value: unknown): number {
  return isCount(value) ? value : 0;
}

function invalid(seq: number, why: string): RyeError {
  return new RyeError('TRANSCRIPT_INVALID', `Cannot rebuild the thread at seq ${seq}: ${why}`, {
    seq,
    reason: why,
  });
}
