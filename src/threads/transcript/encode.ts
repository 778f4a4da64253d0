import { RyeError } from '../../errors/index.js';
import { looksLikeArtifactRef, writeArtifactSync } from './artifacts.js';
import { redactJson } from './redact.js';

/** The largest event line, in bytes without its `\n` (THREADS.md §9). */
export const MAX_EVENT_BYTES = 512 * 1024;

const SEPARATORS = /[\u2028\u2029]/g;

/**
 * JSON text as the transcript stores it: capability tokens redacted, and
 * U+2028/U+2029 escaped so no line-splitting reader (JavaScript's own, older
 * JSON tools) sees two lines. `JSON.stringify` already escapes `\n`, `\r`
 * and lone surrogates. Pure.
 */
export function storedJson(value: unknown): string | undefined {
  const json = JSON.stringify(value);
  if (json === undefined) return undefined;
  const redacted = redactJson(json);
  return redacted.includes('\u2028') || redacted.includes('\u2029')
    ? redacted.replace(SEPARATORS, (ch) => (ch === '\u2028' ? '\\u2028' : '\\u2029'))
    : redacted;
}

/**
 * One envelope line without its `\n` and without its MAC (which
 * `withMac` adds as the last field). Every field but the payload is checked
 * by the caller.
 */
export function envelopeLine(
  seq: number,
  ts: string,
  thread: string,
  type: string,
  prev: string | null,
  payloadJson: string,
): string {
  const prevJson = prev === null ? 'null' : `"${prev}"`;
  return `{"v":2,"seq":${seq},"ts":"${ts}","thread":"${thread}","type":"${type}","prev":${prevJson},"payload":${payloadJson}}`;
}

/**
 * The payload's stored JSON as is. A caller may use it directly when the line
 * fits and the text holds no `"$artifact"` key anywhere; otherwise
 * {@link encodePayload} decides what to spill.
 *
 * @throws RyeError TRANSCRIPT_INVALID when the payload is not a JSON object.
 */
export function payloadJson(payload: unknown): string {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new RyeError(
      'TRANSCRIPT_INVALID',
      'Cannot write an event: its payload is not a JSON object',
      {},
    );
  }
  return jsonOf(payload) ?? '{}';
}

/**
 * The payload's stored JSON, with fields spilled to `artifactsDir` until the
 * whole line (`lineOf(payloadJson)`) fits {@link MAX_EVENT_BYTES}: first any
 * field that looks like an artifact reference (so every reference on disk is
 * one the writer made), then the largest fields first.
 *
 * @throws RyeError TRANSCRIPT_INVALID when the payload is not a JSON object;
 *   TRANSCRIPT_EVENT_TOO_LARGE when spilling every field is not enough.
 */
export function encodePayload(
  payload: unknown,
  artifactsDir: string,
  lineBytes: (payloadJson: string) => number,
): string {
  const whole = payloadJson(payload);
  const entries = Object.entries(payload as object);
  const forced = entries.some(([, value]) => looksLikeArtifactRef(value));
  if (!forced && lineBytes(whole) <= MAX_EVENT_BYTES) return whole;
  // Sizes are tracked in bytes as fields spill, so deciding stays linear.
  const fields = entries.flatMap(([key, value]) => {
    const json = jsonOf(value);
    if (json === undefined) return [];
    const keyJson = jsonOf(key) ?? '""';
    return [
      {
        key: keyJson,
        json,
        keyBytes: utf8Bytes(keyJson),
        bytes: utf8Bytes(json),
        spill: looksLikeArtifactRef(value),
      },
    ];
  });
  const overhead = lineBytes('');
  let total = overhead + 2 + Math.max(fields.length - 1, 0);
  for (const f of fields) total += f.keyBytes + 1 + f.bytes;
  const spill = (field: (typeof fields)[number]): void => {
    field.json = jsonOf(writeArtifactSync(artifactsDir, field.json)) ?? 'null';
    const bytes = utf8Bytes(field.json);
    total += bytes - field.bytes;
    field.bytes = bytes;
    field.spill = false;
  };
  for (const field of fields) if (field.spill) spill(field);
  const bySize = [...fields].sort((a, b) => b.bytes - a.bytes);
  for (const field of bySize) {
    if (total <= MAX_EVENT_BYTES || field.bytes <= 128) break;
    spill(field);
  }
  const assemble = (): string => `{${fields.map((f) => `${f.key}:${f.json}`).join(',')}}`;
  const result = assemble();
  const bytes = lineBytes(result);
  if (bytes > MAX_EVENT_BYTES) {
    throw new RyeError(
      'TRANSCRIPT_EVENT_TOO_LARGE',
      `Cannot write an event of ${bytes} bytes: over ${MAX_EVENT_BYTES} even with its fields spilled`,
      { bytes, max: MAX_EVENT_BYTES },
    );
  }
  return result;
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function jsonOf(value: unknown): string | undefined {
  try {
    return storedJson(value);
  } catch (error) {
    throw new RyeError(
      'TRANSCRIPT_INVALID',
      'Cannot write an event: its payload is not JSON (a BigInt or a cycle)',
      {},
      { cause: error },
    );
  }
}
