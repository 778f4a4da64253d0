/**
 * What a provider or a model sends back reaches no terminal and no file
 * unsafely: a provider echoing its API key in an error leaves the key in no
 * transcript, record or output; a tool-call id or item id carrying terminal
 * controls (OSC 52, a newline) reaches the live progress on stderr escaped.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { threadPaths } from '../../../src/threads/store/index.js';
import { EXECUTE, threadProject, type ThreadProject } from './fixtures.js';

let open: ThreadProject | undefined;
afterEach(async () => {
  await open?.server.close();
  open = undefined;
});

// The scripted provider's key (threadProject's ANTHROPIC_API_KEY), echoed back in its error.
const KEY = 'test-key';

describe('echoed secrets and hostile text', () => {
  it('a provider echoing the API key in its error leaves it nowhere', async () => {
    const p = (open = await threadProject([
      {
        match: { directive: 'summarise' },
        turns: [{ fault: 'status', status: 400, message: `bad request for key ${KEY}` }],
      },
    ]));
    const env = {};
    const json = await p.run([...EXECUTE, '--json'], env);
    expect(json.code).not.toBe(0);
    expect(json.stdout).not.toContain(KEY);
    expect(json.stdout).toContain('[redacted]');
    const id = String(json.json()['thread_id']);
    const paths = threadPaths(p.project, id);
    for (const file of [paths.transcript, paths.record])
      expect(readFileSync(file, 'utf8'), file).not.toContain(KEY);
    const human = await p.run([...EXECUTE], env);
    expect(human.stdout + human.stderr).not.toContain(KEY);
    const tail = await p.run(['thread', 'tail', id], env);
    expect(tail.stdout).not.toContain(KEY);
  });

  // (A tool-call id with controls is refused by the adapter: PROVIDER_RESPONSE_INVALID.)
  it('an item id with terminal controls reaches the progress lines escaped', async () => {
    const hostile = '\u001b]52;c;x\u0007\u202eevil\nfake';
    const p = (open = await threadProject([
      {
        match: { directive: 'summarise' },
        turns: [
          {
            tool_calls: [
              {
                name: 'rye_load',
                input: { item_type: 'knowledge', item_id: `notes/${hostile}` },
              },
            ],
            usage: { in: 100, out: 10 },
          },
          {
            tool_calls: [{ name: 'directive_return', input: { outcome: 'success', answer: 'ok' } }],
            usage: { in: 100, out: 10 },
          },
        ],
      },
    ]));
    const res = await p.run([...EXECUTE]);
    expect(res.code, res.stderr + res.stdout).toBe(0);
    expect(res.stderr).toContain('rye_load');
    for (const raw of ['\u001b', '\u0007', '\u202e']) expect(res.stderr).not.toContain(raw);
    expect(res.stderr.split('\n').some((l) => l.startsWith('fake'))).toBe(false);
  });
});
