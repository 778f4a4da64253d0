/**
 * The operation channel (CONTAINMENT.md §1.7): how a sandboxed tool reaches
 * rye without holding a token. The tool writes JSON lines
 * `{"id", "op", "input"}` on fd 3 and reads one answer line per request,
 * `{"id", ...result}` in the shape every operation answers with. The check
 * happens here, outside the sandbox, by the caller's handler: there is
 * nothing inside to truncate, replay or mint.
 */
import type { Duplex } from 'node:stream';
import { RyeError, hintFor, type ErrorCode } from '../../errors/index.js';

/** The four operations a channel request may name. */
export const CHANNEL_OPS = ['execute', 'search', 'load', 'sign'] as const;
export type ChannelOp = (typeof CHANNEL_OPS)[number];

/** One parsed request. */
export interface ChannelRequest {
  readonly op: ChannelOp;
  readonly input: unknown;
}

/**
 * Answers one request under the caller's authority, with the tool's signed
 * `rye:` patterns (the request must be within both). Supplied by the layer
 * that owns the authority (ops); refusals come back as `status: "error"`.
 */
export type ChannelHandler = (
  request: ChannelRequest,
  toolPatterns: readonly string[],
) => Promise<Readonly<Record<string, unknown>>>;

/** The longest request line read; a longer one is refused and the channel closed. */
export const MAX_CHANNEL_LINE_BYTES = 1024 * 1024;
/** Requests one tool call may make. */
export const MAX_CHANNEL_REQUESTS = 256;

export interface ChannelOptions {
  readonly handler: ChannelHandler;
  readonly patterns: readonly string[];
}

/**
 * Serve one tool's channel until it closes. Requests are answered one at a
 * time, in order. A malformed line gets CHANNEL_REQUEST_INVALID; a line over
 * {@link MAX_CHANNEL_LINE_BYTES} or past {@link MAX_CHANNEL_REQUESTS}
 * requests ends the channel. Once `ended()` is called (the tool's call is
 * over), every further request is refused with CHANNEL_DENIED.
 */
export function serveChannel(socket: Duplex, options: ChannelOptions): { ended(): void } {
  let buffered: Buffer[] = [];
  let size = 0;
  let count = 0;
  let over = false;
  let queue: Promise<void> = Promise.resolve();
  const send = (id: unknown, answer: Readonly<Record<string, unknown>>): void => {
    if (socket.writable) socket.write(`${JSON.stringify({ id, ...answer })}\n`);
  };
  const refuse = (id: unknown, code: ErrorCode, message: string): void =>
    send(id, { status: 'error', error: { code, message, hint: hintFor(code) } });
  const handle = async (line: string): Promise<void> => {
    const parsed = parseRequest(line);
    if (parsed instanceof RyeError)
      return refuse(parsed.details?.['id'] ?? null, parsed.code, parsed.message);
    if (over)
      return refuse(
        parsed.id,
        'CHANNEL_DENIED',
        'Cannot answer: the tool call this channel belongs to has ended',
      );
    try {
      send(parsed.id, await options.handler(parsed.request, options.patterns));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      refuse(parsed.id, 'INTERNAL_ERROR', `Cannot answer: ${message}`);
    }
  };
  // Past a limit nothing more is read: the answers already queued go out, then
  // the refusal, then the end. Lines are counted and measured as they arrive
  // (not as they are answered), so one write of many lines is capped too.
  let closing = false;
  const close = (why: string): void => {
    closing = true;
    buffered = [];
    queue = queue.then(() => {
      refuse(null, 'CHANNEL_REQUEST_INVALID', why);
      socket.end();
    });
  };
  const tooLong = `Cannot answer: a request is over ${MAX_CHANNEL_LINE_BYTES} bytes`;
  socket.on('data', (chunk: Buffer) => {
    if (closing) return;
    let start = 0;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, at);
      start = at + 1;
      if (size + piece.length > MAX_CHANNEL_LINE_BYTES) return close(tooLong);
      if (count >= MAX_CHANNEL_REQUESTS)
        return close(`Cannot answer: more than ${MAX_CHANNEL_REQUESTS} requests in one tool call`);
      count += 1;
      const line = Buffer.concat([...buffered, piece]).toString('utf8');
      buffered = [];
      size = 0;
      queue = queue.then(() => handle(line));
    }
    const rest = chunk.subarray(start);
    size += rest.length;
    if (size > MAX_CHANNEL_LINE_BYTES) return close(tooLong);
    if (rest.length > 0) buffered.push(rest);
  });
  socket.on('error', () => undefined);
  return {
    ended: () => {
      over = true;
    },
  };
}

function parseRequest(line: string): { id: unknown; request: ChannelRequest } | RyeError {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return invalid(null, 'it is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return invalid(null, 'it is not a JSON object');
  const record = value as Record<string, unknown>;
  const id = Object.hasOwn(record, 'id') ? record['id'] : null;
  if (!(typeof id === 'string' || typeof id === 'number') || String(id).length > 128)
    return invalid(null, 'id must be a string or number of at most 128 characters');
  const op = record['op'];
  if (typeof op !== 'string' || !(CHANNEL_OPS as readonly string[]).includes(op))
    return invalid(id, `op must be one of ${CHANNEL_OPS.join(', ')}`);
  const unknown = Object.keys(record).filter((k) => !['id', 'op', 'input'].includes(k));
  if (unknown.length > 0) return invalid(id, `unknown field ${unknown.join(', ')}`);
  return { id, request: { op: op as ChannelOp, input: record['input'] ?? {} } };
}

function invalid(id: unknown, why: string): RyeError {
  return new RyeError('CHANNEL_REQUEST_INVALID', `Cannot answer the channel request: ${why}`, {
    id,
  });
}
