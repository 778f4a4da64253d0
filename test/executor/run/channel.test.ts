import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_CHANNEL_LINE_BYTES,
  MAX_CHANNEL_REQUESTS,
  serveChannel,
  type ChannelHandler,
  type ChannelRequest,
} from '../../../src/executor/index.js';

/*
 * serveChannel() over a real Unix socket: the client end plays the tool, the
 * server end is what rye serves (CONTAINMENT.md §1.7).
 */

interface Link {
  readonly client: Socket;
  readonly served: { ended(): void };
  readonly seen: ChannelRequest[];
  /** The next `count` answer lines, parsed. */
  answers(count: number): Promise<Record<string, unknown>[]>;
  /** Resolves once the server has closed the channel. */
  readonly closed: Promise<void>;
}

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanup.splice(0)) fn();
});

const echo: ChannelHandler = async (request, patterns) => ({
  status: 'success',
  item_id: '',
  data: { op: request.op, input: request.input, patterns },
});

async function link(handler: ChannelHandler = echo): Promise<Link> {
  const dir = mkdtempSync(join(tmpdir(), 'rye-channel-'));
  const path = join(dir, 'channel.sock');
  const seen: ChannelRequest[] = [];
  let served: { ended(): void } | undefined;
  const server: Server = createServer((socket) => {
    served = serveChannel(socket, {
      // Every request that reaches an answer is seen here first.
      handler: (request, patterns) => {
        seen.push(request);
        return handler(request, patterns);
      },
      patterns: ['rye.load.knowledge.*'],
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const client = connect(path);
  await new Promise<void>((resolve) => client.once('connect', resolve));
  while (served === undefined) await new Promise((r) => setImmediate(r));
  cleanup.push(() => {
    client.destroy();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let text = '';
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  client.setEncoding('utf8');
  client.on('data', (chunk: string) => {
    text += chunk;
    let at: number;
    while ((at = text.indexOf('\n')) !== -1) {
      lines.push(text.slice(0, at));
      text = text.slice(at + 1);
    }
    wake?.();
  });
  const closed = new Promise<void>((resolve) => client.once('end', resolve));
  return {
    client,
    served: served as { ended(): void },
    seen,
    closed,
    async answers(count) {
      while (lines.length < count) await new Promise<void>((resolve) => (wake = resolve));
      return lines.splice(0, count).map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}

const request = (id: unknown, op = 'load', input: unknown = { item_id: 'a/b' }): string =>
  `${JSON.stringify({ id, op, input })}\n`;

describe('serveChannel()', () => {
  it('answers each request with its id, the result and the tool’s patterns, in order', async () => {
    const l = await link(async (r) => {
      // The first request is the slowest: the answers still come in order.
      if ((r.input as { n: number }).n === 0) await new Promise((res) => setTimeout(res, 30));
      return { status: 'success', item_id: '', data: (r.input as { n: number }).n };
    });
    l.client.write([0, 1, 2].map((n) => request(`r${n}`, 'search', { n })).join(''));
    expect(await l.answers(3)).toEqual([
      { id: 'r0', status: 'success', item_id: '', data: 0 },
      { id: 'r1', status: 'success', item_id: '', data: 1 },
      { id: 'r2', status: 'success', item_id: '', data: 2 },
    ]);
    expect(l.seen.map((r) => r.op)).toEqual(['search', 'search', 'search']);
  });

  it('passes the op, the input ({} when absent) and the patterns to the handler', async () => {
    const l = await link();
    l.client.write(`${JSON.stringify({ id: 7, op: 'sign' })}\n`);
    expect(await l.answers(1)).toEqual([
      {
        id: 7,
        status: 'success',
        item_id: '',
        data: { op: 'sign', input: {}, patterns: ['rye.load.knowledge.*'] },
      },
    ]);
  });

  it.each([
    ['malformed JSON', '{"id": 1, "op": "load"', null, /not JSON/],
    ['a JSON array', '[1, 2]', null, /not a JSON object/],
    ['a JSON string', '"load"', null, /not a JSON object/],
    ['null', 'null', null, /not a JSON object/],
    ['no id', '{"op": "load"}', null, /id must be/],
    ['an object id', '{"id": {}, "op": "load"}', null, /id must be/],
    [
      'an id over 128 characters',
      JSON.stringify({ id: 'x'.repeat(129), op: 'load' }),
      null,
      /id must be/,
    ],
    [
      'an unknown op',
      '{"id": 3, "op": "delete"}',
      3,
      /op must be one of execute, search, load, sign/,
    ],
    ['an unknown field', '{"id": "k", "op": "load", "token": "x"}', 'k', /unknown field token/],
  ])('refuses %s with CHANNEL_REQUEST_INVALID and keeps serving', async (_, line, id, why) => {
    const l = await link();
    l.client.write(`${line}\n${request('next')}`);
    const [refused, next] = await l.answers(2);
    expect(refused).toMatchObject({
      id,
      status: 'error',
      error: { code: 'CHANNEL_REQUEST_INVALID', message: expect.stringMatching(why) },
    });
    expect(next).toMatchObject({ id: 'next', status: 'success' });
    expect(l.seen).toHaveLength(1);
  });

  it('answers a request split across writes, and one of exactly the line cap', async () => {
    const l = await link();
    const whole = request('split');
    l.client.write(whole.slice(0, 10));
    await new Promise((r) => setTimeout(r, 10));
    l.client.write(whole.slice(10));
    expect(await l.answers(1)).toMatchObject([{ id: 'split', status: 'success' }]);
    const head = JSON.stringify({ id: 'max', op: 'load', input: { pad: '' } });
    const pad = 'x'.repeat(MAX_CHANNEL_LINE_BYTES - head.length);
    l.client.write(`${JSON.stringify({ id: 'max', op: 'load', input: { pad } })}\n`);
    expect(await l.answers(1)).toMatchObject([{ id: 'max', status: 'success' }]);
  });

  it('closes the channel on a line over 1 MiB, with or without its newline', async () => {
    for (const tail of ['', '"}\n']) {
      const l = await link();
      l.client.write(request('before'));
      l.client.write(
        `{"id": "big", "op": "load", "input": "${'x'.repeat(MAX_CHANNEL_LINE_BYTES)}${tail}`,
      );
      const [before, refused] = await l.answers(2);
      expect(before).toMatchObject({ id: 'before', status: 'success' });
      expect(refused).toMatchObject({
        id: null,
        status: 'error',
        error: {
          code: 'CHANNEL_REQUEST_INVALID',
          message: expect.stringMatching(/over 1048576 bytes/),
        },
      });
      await l.closed;
      expect(l.seen.map((r) => r.op)).toEqual(['load']);
    }
  });

  it(`answers ${MAX_CHANNEL_REQUESTS} requests, then refuses and closes, even when sent in one write`, async () => {
    const l = await link();
    const count = MAX_CHANNEL_REQUESTS + 10;
    l.client.write(Array.from({ length: count }, (_, i) => request(i)).join(''));
    const answers = await l.answers(MAX_CHANNEL_REQUESTS + 1);
    expect(answers.slice(0, -1).map((a) => a['id'])).toEqual(
      Array.from({ length: MAX_CHANNEL_REQUESTS }, (_, i) => i),
    );
    expect(answers.at(-1)).toMatchObject({
      id: null,
      error: { code: 'CHANNEL_REQUEST_INVALID', message: expect.stringMatching(/more than 256/) },
    });
    await l.closed;
    expect(l.seen).toHaveLength(MAX_CHANNEL_REQUESTS);
  });

  it('refuses every request once ended() is called, without calling the handler', async () => {
    const l = await link();
    l.client.write(request(1));
    expect(await l.answers(1)).toMatchObject([{ id: 1, status: 'success' }]);
    l.served.ended();
    l.client.write(request(2) + request(3, 'execute'));
    const refused = await l.answers(2);
    for (const [i, answer] of refused.entries())
      expect(answer).toMatchObject({
        id: i + 2,
        status: 'error',
        error: { code: 'CHANNEL_DENIED', message: expect.stringMatching(/has ended/) },
      });
    expect(l.seen).toHaveLength(1);
  });

  it('answers INTERNAL_ERROR when the handler throws, and keeps serving', async () => {
    const l = await link(async (r) => {
      if (r.op === 'execute') throw new Error('boom');
      return { status: 'success', item_id: '', data: null };
    });
    l.client.write(request('a', 'execute') + request('b'));
    const [failed, ok] = await l.answers(2);
    expect(failed).toMatchObject({
      id: 'a',
      status: 'error',
      error: { code: 'INTERNAL_ERROR', message: 'Cannot answer: boom' },
    });
    expect(ok).toMatchObject({ id: 'b', status: 'success' });
  });
});
