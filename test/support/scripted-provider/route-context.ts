import type { ServerResponse } from 'node:http';
import type { ScriptBook } from './script.js';

export interface ResolvedOptions {
  /** The one key both routes accept. */
  readonly key: string;
  /** The header the Anthropic route wants the key in (`authorization` means Bearer). */
  readonly anthropicAuth: 'x-api-key' | 'authorization';
  /** Characters per SSE text or argument piece. */
  readonly chunk: number;
  /** OpenAI's `created` (Unix seconds), fixed so replies are byte-identical across runs. */
  readonly created: number;
}

/** What a route sees of one request, and how it reports back to the capture log. */
export interface RouteContext {
  readonly res: ServerResponse;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: unknown;
  readonly raw: string;
  readonly requestId: string;
  readonly book: ScriptBook;
  readonly options: ResolvedOptions;
  /** Merge facts about this request into its captured record. */
  record(facts: { status?: number; conversation?: string; turn?: number }): void;
  /** Note a script problem (no entry, ran out): tests assert there were none. */
  problem(message: string): void;
}
