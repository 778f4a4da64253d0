// Provider benchmarks: resolving a provider (read, verify and parse the signed
// system descriptor, pick the model and endpoint), and one streamed turn
// through each adapter against a loopback server that replays a recorded
// answer (text plus a tool call), so the figure is the SDK's and the
// adapter's own cost per turn, without any model time.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { resolveSpaces } from '../dist/src/items/index.js';
import {
  createAnthropicClient,
  createOpenAIClient,
  selectProvider,
} from '../dist/src/threads/providers/index.js';
import { median, report } from './util.mjs';

const ANTHROPIC_EVENTS = [
  [
    'message_start',
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 900, output_tokens: 1 },
      },
    },
  ],
  [
    'content_block_start',
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ],
  ...Array.from({ length: 20 }, () => [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'some words ' } },
  ]),
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  [
    'content_block_start',
    {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'toolu_1', name: 'rye_execute', input: {} },
    },
  ],
  [
    'content_block_delta',
    {
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: '{"item_type":"tool",' },
    },
  ],
  [
    'content_block_delta',
    {
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: '"item_id":"apps/x/build"}' },
    },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 1 }],
  [
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 60 },
    },
  ],
  ['message_stop', { type: 'message_stop' }],
];
const chunk = (delta, finish = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
  usage: null,
});
const OPENAI_EVENTS = [
  chunk({ role: 'assistant', content: '' }),
  ...Array.from({ length: 20 }, () => chunk({ content: 'some words ' })),
  chunk({
    tool_calls: [
      {
        index: 0,
        id: 'call_1',
        type: 'function',
        function: { name: 'rye_execute', arguments: '' },
      },
    ],
  }),
  chunk({
    tool_calls: [
      { index: 0, function: { arguments: '{"item_type":"tool","item_id":"apps/x/build"}' } },
    ],
  }),
  chunk({}, 'tool_calls'),
  {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [],
    usage: { prompt_tokens: 900, completion_tokens: 60, total_tokens: 960 },
  },
];
const ANTHROPIC_BODY = ANTHROPIC_EVENTS.map(
  ([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`,
).join('');
const OPENAI_BODY = `${OPENAI_EVENTS.map((d) => `data: ${JSON.stringify(d)}\n\n`).join('')}data: [DONE]\n\n`;

const REQUEST = {
  model: 'm',
  system: '<directive name="bench">x</directive>',
  messages: [{ role: 'user', content: [{ type: 'text', text: '{"feature":"bench"}' }] }],
  tools: [
    {
      name: 'rye_execute',
      description: 'Execute',
      input_schema: { type: 'object', properties: {} },
    },
  ],
  max_tokens: 1024,
};

async function timeTurns(client, turns) {
  for (let i = 0; i < 20; i++) await client.send(REQUEST); // warm-up: JIT, keep-alive socket
  const times = [];
  for (let i = 0; i < turns; i++) {
    const start = performance.now();
    await client.send(REQUEST, { onProgress: () => {} });
    times.push(performance.now() - start);
  }
  return median(times);
}

export async function run() {
  const spaces = resolveSpaces({
    project: process.cwd(),
    env: { RYE_USER_SPACE: '/nonexistent-rye-bench-user' },
  });
  await selectProvider(spaces, { tier: 'sonnet' }, { env: {} });
  const selects = [];
  for (let i = 0; i < 200; i++) {
    const start = performance.now();
    await selectProvider(spaces, { tier: 'sonnet' }, { env: {} });
    selects.push(performance.now() - start);
  }
  report('provider.select_ms', median(selects), 'ms', {
    note: 'p50: read, verify, parse the system descriptor; resolve model and endpoint',
  });

  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(req.url === '/v1/messages' ? ANTHROPIC_BODY : OPENAI_BODY);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const auth = { header: 'authorization', scheme: 'Bearer', env: 'K' };
  const anthropic = createAnthropicClient({
    provider: 'bench',
    baseUrl: url,
    auth,
    credential: 'k',
    headers: {},
  });
  const openai = createOpenAIClient({
    provider: 'bench',
    baseUrl: `${url}/v1`,
    auth,
    credential: 'k',
    headers: {},
  });
  report('provider.anthropic_turn_ms', await timeTurns(anthropic, 300), 'ms', {
    note: 'p50 streamed turn over loopback: 24 events, text and a tool call',
  });
  report('provider.openai_turn_ms', await timeTurns(openai, 300), 'ms', {
    note: 'p50 streamed turn over loopback: 25 chunks, text and a tool call',
  });
  server.closeAllConnections();
  server.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
