import type { TrustSet } from '../../integrity/index.js';
import { escapeControl, escapeControlInJson } from '../../platform/index.js';
import { redactJson, redactTokens, type StoredEvent } from '../../threads/transcript/index.js';
import type { CommandContext } from '../context.js';

/**
 * `rye thread tail <id> [--follow] [--json]`: the verified events, one line
 * each (JSONL with `--json`), capability tokens redacted and terminal
 * controls escaped; Ctrl-C ends a follow quietly.
 */
export async function tailCommand(
  ctx: CommandContext,
  threadId: string,
  follow: boolean,
  trust: TrustSet,
): Promise<number> {
  const { tailTranscript } = await import('../../threads/control/index.js');
  const { userMacKeyring } = await import('../../threads/store/index.js');
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  if (follow) process.once('SIGINT', onSignal);
  try {
    for await (const event of tailTranscript({
      projectRoot: ctx.spaces.project,
      threadId,
      trust,
      mac: await userMacKeyring(ctx.spaces),
      follow,
      signal: stop.signal,
    })) {
      ctx.io.stdout(
        ctx.json
          ? `${escapeControlInJson(redactJson(JSON.stringify(event)))}\n`
          : `${escapeControl(redactTokens(eventLine(event)))}\n`,
      );
    }
  } finally {
    process.off('SIGINT', onSignal);
  }
  return 0;
}

/** One readable line for an event: seq, time, type and what matters in it. Pure. */
export function eventLine(event: StoredEvent): string {
  const p = event.payload;
  const time = event.ts.slice(11, 23);
  return `${String(event.seq).padStart(4)} ${time} ${event.type.padEnd(16)} ${describe(event.type, p)}`.trimEnd();
}

function describe(type: string, p: Readonly<Record<string, unknown>>): string {
  switch (type) {
    case 'thread_created':
      return `${str((p['directive'] as Record<string, unknown> | undefined)?.['id'])} inputs ${clip(json(p['inputs']))}`;
    case 'system_prompt':
      return clip(str(p['text']));
    case 'cognition_in':
      return clip(typeof p['content'] === 'string' ? p['content'] : json(p['content']));
    case 'budget':
      return `${str(p['op'])} ${str(p['attempt_id']).split(':').slice(1).join(':')} ${num(p['nanos'])} nanos${p['state'] === undefined ? '' : ` ${str(p['state'])}`}${typeof p['reason'] === 'string' ? ` (${p['reason']})` : ''}`;
    case 'cognition_out': {
      const parts = Array.isArray(p['content']) ? (p['content'] as Record<string, unknown>[]) : [];
      const said = parts.map((c) =>
        c['type'] === 'tool_call'
          ? `→ ${str(c['name'])}(${clip(json(c['input']), 80)})`
          : clip(str(c['text']), 80),
      );
      const usage = p['usage'] as { in?: number; out?: number } | null;
      return `${str(p['stop_reason'])}${usage === null || usage === undefined ? '' : ` ${usage.in ?? 0} in / ${usage.out ?? 0} out`}: ${said.join(' ')}`;
    }
    case 'tool_call_start':
      return `${str(p['name'])} ${clip(json(p['input']), 120)}${p['required_cap'] === null ? '' : ` needs ${str(p['required_cap'])}`}`;
    case 'capability_denied':
      return `${str(p['call_id'])} lacks ${str(p['required'])}`;
    case 'nested_call':
      return `${str(p['call_id'])} asked rye over fd 3: ${str(p['op'])} ${str(p['item_type'])} ${str(p['item_id'])}${p['refused'] === undefined ? '' : ` refused ${str(p['refused'])}`}`;
    case 'tool_call_result': {
      const error = p['error'] as { code?: unknown } | undefined;
      return `${str(p['call_id'])} ${p['ok'] === true ? `ok ${num(p['bytes'])} bytes` : `error ${str(error?.code)}`}`;
    }
    case 'checkpoint':
      return `sealed through seq ${num(p['seq'])} (key ${str(p['fp'])})`;
    case 'limit_hit':
      return `${str(p['limit'])} ${num(p['current'])}/${num(p['max'])}`;
    case 'limits_set': {
      const now = (p['limits'] ?? {}) as Record<string, unknown>;
      const was = (p['previous'] ?? {}) as Record<string, unknown>;
      const changed = Object.keys(now).filter((k) => now[k] !== was[k]);
      return `by the operator (key ${str(p['fp'])}): ${changed.map((k) => `${k} ${str(was[k])} → ${str(now[k])}`).join(', ') || 'unchanged'}`;
    }
    case 'repair':
      return p['kind'] === 'ledger_raised'
        ? `ledger_raised ${str(p['account'])}: ${num(p['ledger_nanos'])} → ${num(p['committed_nanos'])} nanos committed (transcripts: ${num(p['transcript_nanos'])})`
        : `${str(p['kind'])} ${json(p['call_ids'])}`;
    default: {
      const error = p['error'] as { code?: unknown; message?: unknown } | undefined;
      const cost = p['cost'] as { turns?: number } | undefined;
      if (type.startsWith('thread_'))
        return [
          error === undefined ? '' : `${str(error.code)}: ${clip(str(error.message), 120)}`,
          p['summary'] === undefined ? '' : clip(str(p['summary'])),
          p['outputs'] === undefined ? '' : `outputs ${clip(json(p['outputs']))}`,
          cost === undefined ? '' : `(${cost.turns ?? 0} turns)`,
        ]
          .filter((s) => s !== '')
          .join(' ');
      return clip(json(p));
    }
  }
}

function str(value: unknown): string {
  return typeof value === 'string'
    ? value
    : value === undefined || value === null
      ? '-'
      : json(value);
}

function num(value: unknown): string {
  return typeof value === 'number' ? String(value) : '?';
}

function json(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** One line, at most `max` characters: newlines shown as ⏎. */
function clip(text: string, max = 160): string {
  const flat = text.replace(/\r?\n/g, ' ⏎ ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
