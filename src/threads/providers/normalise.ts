/**
 * Pieces both adapters share when turning a finished stream into content:
 * tool arguments (never `{}` for garbage), call ids (unique, well formed) and
 * usage (whole non-negative counts, or nothing).
 */
import { RyeError } from '../../errors/index.js';
import type { ContentPart, Usage } from '../conversation/index.js';

/** Call ids are echoed back to the provider and key the transcript's pairing. */
const CALL_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const TOOL_NAME = /^[A-Za-z0-9_-]{1,128}$/;
/**
 * Most text and argument characters one response may stream: far above any
 * output cap, low enough that a hostile or broken endpoint cannot exhaust memory.
 */
export const MAX_RESPONSE_CHARS = 32 * 1024 * 1024;
/** Largest argument text parsed; a tool input is a JSON object a model wrote. */
export const MAX_ARGUMENT_CHARS = 4 * 1024 * 1024;

type ToolCallPart = Extract<ContentPart, { type: 'tool_call' }>;

/**
 * A tool call from its id, name and raw argument text. Arguments that are not
 * one JSON object (empty, truncated, an array, over the cap) keep their raw
 * text in `input` and say why in `invalid_input`: the call never runs with a
 * made-up `{}`; it gets an error result PROVIDER_RESPONSE_INVALID instead.
 *
 * @throws RyeError PROVIDER_RESPONSE_INVALID for a malformed id or name (the
 *   whole response is unusable then: results could not be paired).
 */
export function toolCallPart(
  provider: string,
  id: unknown,
  name: unknown,
  raw: string,
): ToolCallPart {
  if (typeof id !== 'string' || !CALL_ID.test(id))
    throw responseInvalid(provider, 'a tool call carries no usable id', {
      id: String(id).slice(0, 140),
    });
  if (typeof name !== 'string' || !TOOL_NAME.test(name))
    throw responseInvalid(provider, `tool call ${id} carries no usable name`, { id });
  const parsed = parseArguments(raw);
  if ('input' in parsed) return { type: 'tool_call', id, name, input: parsed.input };
  return {
    type: 'tool_call',
    id,
    name,
    input: raw.length > MAX_ARGUMENT_CHARS ? raw.slice(0, MAX_ARGUMENT_CHARS) : raw,
    invalid_input: parsed.problem,
  };
}

function parseArguments(raw: string): { input: object } | { problem: string } {
  if (raw.length > MAX_ARGUMENT_CHARS)
    return { problem: `arguments are over ${MAX_ARGUMENT_CHARS} characters` };
  if (raw.trim() === '') return { problem: 'arguments are empty, not a JSON object' };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    const why = error instanceof Error ? error.message.slice(0, 120) : 'parse error';
    return { problem: `arguments are not valid JSON (${why})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'arguments are valid JSON but not an object' };
  return { input: value };
}

/**
 * Two calls with one id cannot both be answered: fail the attempt.
 * @throws RyeError PROVIDER_RESPONSE_INVALID (`details.retryable: true`)
 */
export function assertUniqueCallIds(provider: string, content: readonly ContentPart[]): void {
  const seen = new Set<string>();
  for (const part of content) {
    if (part.type !== 'tool_call') continue;
    if (seen.has(part.id))
      throw responseInvalid(provider, `two tool calls share the id ${part.id}`, { id: part.id });
    seen.add(part.id);
  }
}

/** Usage from the provider's counts: every present count a safe non-negative integer, `in` and `out` required. */
export function usageOf(counts: {
  readonly in: unknown;
  readonly out: unknown;
  readonly cache_r?: unknown;
  readonly cache_w?: unknown;
}): { usage: Usage } | { problem: 'missing' | 'malformed' } {
  if (
    counts.in === undefined ||
    counts.in === null ||
    counts.out === undefined ||
    counts.out === null
  )
    return { problem: 'missing' };
  const ok = (v: unknown): v is number =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  const optional = (v: unknown): boolean => v === undefined || v === null || ok(v);
  if (!ok(counts.in) || !ok(counts.out) || !optional(counts.cache_r) || !optional(counts.cache_w))
    return { problem: 'malformed' };
  return {
    usage: {
      in: counts.in,
      out: counts.out,
      ...(ok(counts.cache_r) ? { cache_r: counts.cache_r } : {}),
      ...(ok(counts.cache_w) ? { cache_w: counts.cache_w } : {}),
    },
  };
}

/** A response that breaks the wire format; worth another attempt, within the retry bound. */
export function responseInvalid(
  provider: string,
  why: string,
  details: Record<string, unknown> = {},
): RyeError {
  return new RyeError(
    'PROVIDER_RESPONSE_INVALID',
    `Cannot use the response from provider ${provider}: ${why}`,
    { provider, retryable: true, ...details },
  );
}

/** A provider's message id, checked: a short printable string. */
export function messageIdOf(provider: string, value: unknown): string {
  if (typeof value === 'string' && /^[\x21-\x7e]{1,256}$/.test(value)) return value;
  throw responseInvalid(provider, 'the response carries no usable message id');
}
