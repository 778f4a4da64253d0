/**
 * A scripted reply made concrete for one conversation turn: ids, usage and
 * stop reason decided once, so the JSON and SSE renderings of both families
 * say the same thing.
 */
import { createHash } from 'node:crypto';
import type { ScriptReply, ScriptUsage } from './script.js';

export interface RenderedCall {
  readonly id: string;
  readonly name: string;
  /** The argument text sent (valid JSON or deliberately not). */
  readonly args: string;
}

export interface RenderedReply {
  readonly messageId: string;
  readonly text: string;
  readonly calls: readonly RenderedCall[];
  readonly stop: string;
  readonly usage: ScriptUsage | null;
}

/** Deterministic ids: a hash of the conversation key, the turn and the position. */
export function renderReply(
  family: 'anthropic' | 'openai',
  reply: ScriptReply,
  key: string,
  turn: number,
  requestBytes: number,
): RenderedReply {
  const tag = createHash('sha256').update(key).digest('hex').slice(0, 12);
  const callPrefix = family === 'anthropic' ? 'toolu' : 'call';
  const calls = (reply.tool_calls ?? []).map((call, i) => ({
    id: call.id ?? `${callPrefix}_${tag}_${turn}_${i}`,
    name: call.name,
    args: call.raw_arguments ?? JSON.stringify(call.input ?? {}),
  }));
  const text = reply.text ?? '';
  const messageId =
    reply.message_id ?? (family === 'anthropic' ? `msg_${tag}_${turn}` : `chatcmpl-${tag}-${turn}`);
  const estimate: ScriptUsage = {
    in: Math.ceil(requestBytes / 4),
    out: Math.max(1, Math.ceil((text.length + calls.reduce((n, c) => n + c.args.length, 0)) / 4)),
  };
  return {
    messageId,
    text,
    calls,
    stop: reply.stop_reason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
    usage: reply.usage === 'missing' ? null : (reply.usage ?? estimate),
  };
}

/** Split text into pieces of `size` characters (at least one piece, possibly empty). */
export function pieces(text: string, size: number): string[] {
  if (text === '') return [''];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
