import { RyeError } from '../../errors/index.js';
import type { Message } from '../conversation/index.js';
import {
  readTranscriptBytes,
  resolveArtifacts,
  splitLines,
  type RebuiltUnit,
  type StoredEvent,
} from '../transcript/index.js';

/**
 * The most of a span handed to a compaction action as `conversation`
 * (characters): a child thread reads it in its first message; a tool gets it
 * in its parameters, which a script runtime passes as one argv string, and
 * Linux caps one argument at 128 KiB.
 */
export const MAX_CONVERSATION_CHARS = { directive: 200_000, tool: 32_000 } as const;

/** The transcript span a compaction replaces, on unit boundaries, and what it holds. */
export interface CompactionSpan {
  readonly from: number;
  readonly to: number;
  readonly units: readonly RebuiltUnit[];
}

/**
 * Choose what a compaction replaces: every unit after the first (the
 * inputs) and before the last assistant turn (kept whole, with its results
 * and any notes after it), so the model keeps its task and its latest step.
 * Spans start and end on unit boundaries: a call is never separated from its
 * result. Null when no earlier assistant turn is left to compact. Pure.
 */
export function planCompaction(units: readonly RebuiltUnit[]): CompactionSpan | null {
  let last = -1;
  for (let i = units.length - 1; i >= 1; i -= 1) {
    if (units[i]?.messages[0]?.role === 'assistant') {
      last = i;
      break;
    }
  }
  const span = units.slice(1, Math.max(1, last));
  if (!span.some((u) => u.messages.some((m) => m.role === 'assistant'))) return null;
  return {
    from: (span[0] as RebuiltUnit).lo,
    to: (span[span.length - 1] as RebuiltUnit).hi,
    units: span,
  };
}

/**
 * A span as plain text for a summarizer: one line per message part, tool
 * calls with their input, results with their text; capped at `maxChars` as
 * head and tail. Pure.
 */
export function renderSpan(units: readonly RebuiltUnit[], maxChars: number): string {
  const lines: string[] = [];
  for (const unit of units) for (const message of unit.messages) lines.push(...linesOf(message));
  const text = lines.join('\n');
  if (text.length <= maxChars) return text;
  const half = Math.floor((maxChars - 64) / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
}

function linesOf(message: Message): string[] {
  return message.content.map((part) => {
    if (part.type === 'text') return `${message.role}: ${part.text}`;
    if (part.type === 'tool_call')
      return `${message.role} called ${part.name} ${JSON.stringify(part.input) ?? ''}`;
    return `result of ${part.call_id} (${part.ok ? 'ok' : 'error'}): ${part.content}`;
  });
}

/**
 * The events of the transcript this process is writing, artifacts resolved.
 * Only the owning run reads it, under the tree lock and right after its own
 * appends, so the lines are parsed without re-verifying the chain (resume and
 * `rye thread verify` do that).
 *
 * @throws RyeError FILE_UNREADABLE, FILE_TOO_LARGE, TRANSCRIPT_INVALID
 */
export function readOwnEvents(transcript: string, artifactsDir: string): StoredEvent[] {
  const { lines } = splitLines(readTranscriptBytes(transcript));
  const events = lines.map((line, seq): StoredEvent => {
    try {
      return JSON.parse(line.toString('utf8')) as StoredEvent;
    } catch (error) {
      throw new RyeError(
        'TRANSCRIPT_INVALID',
        `Cannot read transcript ${transcript} at seq ${seq}: the line is not JSON`,
        { seq },
        { cause: error },
      );
    }
  });
  return resolveArtifacts(events, artifactsDir);
}
