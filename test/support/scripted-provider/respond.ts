/** Writing JSON answers, SSE streams and resets on a raw `node:http` response. */
import type { ServerResponse } from 'node:http';
import type { SseEvent } from './anthropic-replies.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** One SSE frame: `event:` when named, `data:` JSON (or verbatim text), a blank line. */
export function sseFrame(event: SseEvent): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  return `${event.event === null ? '' : `event: ${event.event}\n`}data: ${data}\n\n`;
}

export interface StreamPlan {
  readonly events: readonly SseEvent[];
  /** Destroy the socket after this many events (a mid-stream reset). */
  readonly resetAfter?: number;
  /** Stop sending after this many events and hold the connection open until the client leaves. */
  readonly hangAfter?: number;
  /** Replace the rest of the stream with this frame after `errorAfter` events. */
  readonly errorAfter?: number;
  readonly errorEvent?: SseEvent;
}

/** Stream the events, then end, reset or fail as planned. Resolves once written. */
export async function sendStream(
  res: ServerResponse,
  plan: StreamPlan,
  headers: Readonly<Record<string, string>> = {},
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...headers,
  });
  const stopAt = Math.min(
    plan.resetAfter ?? Infinity,
    plan.errorAfter ?? Infinity,
    plan.hangAfter ?? Infinity,
  );
  const sent = plan.events.slice(0, Math.min(stopAt, plan.events.length));
  for (const event of sent) await write(res, sseFrame(event));
  if (plan.hangAfter !== undefined) {
    await new Promise<void>((resolve) => res.once('close', resolve));
    return;
  }
  if (plan.resetAfter !== undefined) {
    res.socket?.destroy();
    return;
  }
  if (plan.errorEvent !== undefined) await write(res, sseFrame(plan.errorEvent));
  res.end();
}

/** Drop the connection without any response. */
export function reset(res: ServerResponse): void {
  res.socket?.destroy();
}

function write(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    res.write(text, (error) => (error ? reject(error) : resolve()));
  });
}
