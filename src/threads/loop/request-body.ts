/**
 * The runner's request phase: what each turn sends (THREADS.md §6), the
 * plan's model, system prompt and tools with the conversation so far, and
 * the window hooks that may compact that conversation before it is sent
 * (THREADS.md §12 `context_window_pressure`).
 */
import { sha256Hex } from '../../integrity/index.js';
import type { RyeError } from '../../errors/index.js';
import type { Message } from '../conversation/index.js';
import type { DirectivePlan } from '../admission/index.js';
import type { ThreadHooks } from '../hooks/index.js';
import type { threadPaths } from '../store/index.js';
import { mergeRoles } from '../transcript/index.js';
import type { AttemptRequest } from './paid-attempt.js';

/**
 * The conversation a thread sends, with the request's size and digest kept
 * as it grows, so a turn serializes and hashes only what is new (a
 * whole-body hash per turn made the harness quadratic in the conversation).
 * The digest chains: `d(n) = sha256(d(n-1) "\n" JSON(message n))`, from the
 * model, system prompt and tools; the size is the JSON bytes of all of them,
 * which bounds the input tokens as the body would (THREADS.md §6).
 */
export class RequestBody {
  readonly #plan: DirectivePlan;
  #messages: Message[] = [];
  #bytes = 0;
  #digest = '';

  constructor(plan: DirectivePlan) {
    this.#plan = plan;
  }

  /** The conversation as the next request carries it. */
  get messages(): readonly Message[] {
    return this.#messages;
  }

  /** The next request's JSON bytes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** A fresh thread's conversation: its first message. */
  begin(text: string): void {
    this.#foldHead();
    this.push({ role: 'user', content: [{ type: 'text', text }] });
  }

  /** A resumed thread's rebuilt conversation, then its new message. */
  resume(messages: readonly Message[], text: string): void {
    this.#messages = [...messages];
    const last = this.#messages.at(-1);
    const part = { type: 'text' as const, text };
    // Same-role neighbours merge, as the rebuild merges them.
    if (last?.role === 'user')
      this.#messages[this.#messages.length - 1] = {
        role: 'user',
        content: [...last.content, part],
      };
    else this.#messages.push({ role: 'user', content: [part] });
    this.#foldAll();
  }

  push(message: Message): void {
    this.#messages.push(message);
    this.#fold(message);
  }

  /** Hook notes join the next request, merged into its user message as the rebuild merges them. */
  note(notes: readonly string[]): void {
    if (notes.length === 0) return;
    const added = notes.map((text): Message => ({
      role: 'user',
      content: [{ type: 'text', text }],
    }));
    this.replace(mergeRoles([...this.#messages, ...added]));
  }

  /** Another conversation in place of this one (a compaction). */
  replace(messages: readonly Message[]): void {
    this.#messages = [...messages];
    this.#foldAll();
  }

  /** The turn's request as the ledger prices it: the body, its size and its digest. */
  attempt(): Omit<AttemptRequest, 'key'> {
    const model = this.#plan.model!;
    return {
      model,
      request: {
        model: model.model,
        system: this.#plan.system_prompt,
        messages: this.#messages,
        tools: this.#plan.tools,
        max_tokens: model.output_limit,
      },
      bodyBytes: this.#bytes,
      requestSha256: this.#digest,
    };
  }

  #foldHead(): void {
    const head = JSON.stringify({
      model: this.#plan.model?.model,
      system: this.#plan.system_prompt,
      tools: this.#plan.tools,
    });
    this.#bytes = Buffer.byteLength(head, 'utf8');
    this.#digest = sha256Hex(head);
  }

  #foldAll(): void {
    this.#foldHead();
    for (const message of this.#messages) this.#fold(message);
  }

  #fold(message: Message): void {
    const json = JSON.stringify(message);
    this.#bytes += Buffer.byteLength(json, 'utf8') + 1;
    this.#digest = sha256Hex(`${this.#digest}\n${json}`);
  }
}

/**
 * The window hooks before a request: the conversation is compacted in place
 * when they compact it; the error that ends the thread when the window is
 * exhausted, undefined otherwise.
 */
export async function fitWindow(
  hooks: ThreadHooks,
  body: RequestBody,
  plan: DirectivePlan,
  paths: ReturnType<typeof threadPaths>,
): Promise<RyeError | undefined> {
  const pressure = await hooks.beforeRequest({
    system: plan.system_prompt,
    messages: body.messages,
    contextWindow: plan.model?.context_window ?? Infinity,
    bytes: body.bytes,
    transcript: paths.transcript,
    artifactsDir: paths.artifacts,
  });
  if ('exhausted' in pressure) return pressure.exhausted;
  if ('messages' in pressure) body.replace(pressure.messages);
  return undefined;
}
