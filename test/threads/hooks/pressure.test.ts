import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/threads/conversation/index.js';
import { windowTokens } from '../../../src/threads/hooks/index.js';

describe('windowTokens()', () => {
  it('counts the characters of the system prompt and every part of the live window, / 4 rounded up', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'abcd' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'c1', name: 'rye_load', input: { a: 1 } }],
      },
      { role: 'user', content: [{ type: 'tool_result', call_id: 'c1', ok: true, content: 'xy' }] },
    ];
    // 3 + 4 + (8 + 7) + 2 = 24 characters
    expect(windowTokens('sys', messages)).toBe(6);
    expect(windowTokens('sys!', messages)).toBe(7);
  });

  it('falls when the window shrinks: it measures what is sent, never cumulative usage', () => {
    const big: Message = { role: 'user', content: [{ type: 'text', text: 'x'.repeat(4000) }] };
    const small: Message = { role: 'user', content: [{ type: 'text', text: 'summary' }] };
    expect(windowTokens('', [big])).toBe(1000);
    expect(windowTokens('', [small])).toBe(2);
    expect(windowTokens('', [big])).toBe(1000);
  });
});
