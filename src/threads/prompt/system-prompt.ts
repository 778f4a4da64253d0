/** What the system prompt is built from: all of it fixed at admission. */
export interface PromptParts {
  readonly directiveId: string;
  /** The directive's text with its signature line removed and `{input:x}` interpolated. */
  readonly directiveText: string;
  /** The thread's capabilities as sorted capability strings. */
  readonly capabilities: readonly string[];
  /** What the directive declared but the thread does not hold. */
  readonly capsDropped: readonly string[];
  /** Whether the directive declares outputs (`directive_return` is offered). */
  readonly returns: boolean;
}

/**
 * The system prompt of a thread (THREADS.md §2, "Prompt"): the directive, what
 * the thread may do, and how it ends. Pure: the same parts give the same bytes,
 * which is what `--plan` shows and what the transcript records.
 */
export function renderSystemPrompt(parts: PromptParts): string {
  const lines = [
    `You are executing the Rye directive \`${parts.directiveId}\`. Follow it.`,
    'You act only through the tools offered: rye_execute, rye_search and rye_load (and rye_sign when offered). Every call is checked against your capabilities; a call outside them is refused and counted.',
    '',
    '## Your capabilities',
    ...(parts.capabilities.length === 0 ? ['- none'] : parts.capabilities.map((c) => `- ${c}`)),
  ];
  if (parts.capsDropped.length > 0)
    lines.push(
      '',
      'Declared by the directive but not granted to you (calls needing them will be refused):',
      ...parts.capsDropped.map((c) => `- ${c}`),
    );
  lines.push(
    '',
    '## How to finish',
    parts.returns
      ? 'When the work is done, or cannot be done, call directive_return once with the outputs it asks for.'
      : 'When the work is done, answer without calling a tool.',
    '',
    '## The directive',
    '',
    parts.directiveText.trim(),
  );
  return `${lines.join('\n')}\n`;
}

/** The first user message: the directive's inputs as JSON. */
export function renderFirstMessage(inputs: Readonly<Record<string, unknown>>): string {
  return JSON.stringify({ inputs }, null, 2);
}
