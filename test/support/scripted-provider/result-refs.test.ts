import { describe, expect, it } from 'vitest';
import { fillResultRefs, latestToolResults } from './result-refs.js';

const anthropicBody = {
  messages: [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'x', input: {} }] },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'a',
          content: '{"data":{"commit_hash":"abc","passed":8}}',
        },
        {
          type: 'tool_result',
          tool_use_id: 'b',
          content: [{ type: 'text', text: '{"data":{"url":"u"}}' }],
        },
      ],
    },
  ],
};

describe('scripted provider: {{result.…}} references', () => {
  it('reads the latest tool results of both wire formats', () => {
    expect(latestToolResults('anthropic', anthropicBody)).toEqual([
      { data: { commit_hash: 'abc', passed: 8 } },
      { data: { url: 'u' } },
    ]);
    const openai = {
      messages: [
        { role: 'assistant', tool_calls: [] },
        { role: 'tool', tool_call_id: 'a', content: '{"n":1}' },
        { role: 'tool', tool_call_id: 'b', content: 'plain' },
      ],
    };
    expect(latestToolResults('openai', openai)).toEqual([{ n: 1 }, 'plain']);
  });

  it('fills whole-string references with the typed value and embedded ones as text; a missing field is a problem', () => {
    const results = latestToolResults('anthropic', anthropicBody);
    const { reply, problems } = fillResultRefs(
      {
        tool_calls: [
          {
            name: 'directive_return',
            input: {
              commit_hash: '{{result.data.commit_hash}}',
              passed: '{{result.data.passed}}',
              summary: 'at {{result[1].data.url}}',
              list: ['{{result.data.nope}}'],
            },
          },
        ],
      },
      results,
    );
    expect(reply.tool_calls?.[0]?.input).toEqual({
      commit_hash: 'abc',
      passed: 8,
      summary: 'at u',
      list: [undefined],
    });
    expect(problems).toEqual(['no tool result field for {{result.data.nope}}']);
  });
});
