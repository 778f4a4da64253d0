/**
 * References from a scripted tool call to the tool results the thread just
 * sent: a script cannot know a commit hash, a test count or a port in advance,
 * a real model reads them from the results. In a reply's tool-call input, a
 * string `{{result.<path>}}` is replaced by that field of the first tool result
 * of the latest message (`{{result[1].<path>}}`: the second), parsed as JSON;
 * a string that is exactly one reference keeps the value's type. A reference
 * that resolves to nothing is a script problem (the server answers 500).
 */
import type { ScriptReply } from './script.js';

const REF = /\{\{result(?:\[(\d+)\])?((?:\.[A-Za-z0-9_]+)+)\}\}/g;

/** The tool results the request's latest message carries, parsed as JSON when they are. */
export function latestToolResults(route: 'anthropic' | 'openai', body: unknown): unknown[] {
  const messages = (body as { messages?: unknown[] } | undefined)?.messages ?? [];
  if (route === 'anthropic') {
    const content = (messages.at(-1) as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) return [];
    return content
      .filter((b: { type?: string }) => b.type === 'tool_result')
      .map((b: { content?: unknown }) => parse(textOf(b.content)));
  }
  const out: unknown[] = [];
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i] as { role?: string; content?: unknown };
    if (m.role !== 'tool') break;
    out.unshift(parse(textOf(m.content)));
  }
  return out;
}

/** The reply with its references filled in, and what could not be. */
export function fillResultRefs(
  reply: ScriptReply,
  results: readonly unknown[],
): { reply: ScriptReply; problems: string[] } {
  if (reply.tool_calls === undefined) return { reply, problems: [] };
  const problems: string[] = [];
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') return fillString(value, results, problems);
    if (Array.isArray(value)) return value.map(fill);
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  };
  const calls = reply.tool_calls.map((call) =>
    call.input === undefined
      ? call
      : { ...call, input: fill(call.input) as Record<string, unknown> },
  );
  return { reply: { ...reply, tool_calls: calls }, problems };
}

function fillString(text: string, results: readonly unknown[], problems: string[]): unknown {
  const lookup = (index: string | undefined, path: string): unknown => {
    let value: unknown = results[Number(index ?? 0)];
    for (const key of path.slice(1).split('.'))
      value =
        typeof value === 'object' && value !== null
          ? (value as Record<string, unknown>)[key]
          : undefined;
    if (value === undefined)
      problems.push(
        `no tool result field for {{result${index === undefined ? '' : `[${index}]`}${path}}}`,
      );
    return value;
  };
  const whole = new RegExp(`^${REF.source}$`).exec(text);
  if (whole !== null) return lookup(whole[1], whole[2] as string);
  return text.replace(REF, (_m, index: string | undefined, path: string) =>
    String(lookup(index, path)),
  );
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((b: { text?: unknown }) => (typeof b.text === 'string' ? b.text : ''))
      .join('');
  return '';
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
