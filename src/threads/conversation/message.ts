/**
 * The provider-neutral conversation a thread holds: what the transcript
 * rebuilds on resume and what each provider adapter translates to and from its
 * own wire format. Tool results are paired with their calls by `call_id`,
 * never by position (THREADS.md §10).
 */
export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'tool_call';
      readonly id: string;
      readonly name: string;
      readonly input: unknown;
      /**
       * Set when the provider's arguments were not a JSON object: `input` then
       * holds the raw argument text, and the call never runs; it gets an error
       * result `PROVIDER_RESPONSE_INVALID` with this reason (THREADS.md §7).
       */
      readonly invalid_input?: string;
    }
  | {
      readonly type: 'tool_result';
      readonly call_id: string;
      readonly ok: boolean;
      /** The JSON text the model sees (already capped and redacted). */
      readonly content: string;
    };

export interface Message {
  readonly role: 'user' | 'assistant';
  readonly content: readonly ContentPart[];
}

/** Token usage as a provider reported it; absent fields were not reported. */
export interface Usage {
  readonly in: number;
  readonly out: number;
  readonly cache_r?: number;
  readonly cache_w?: number;
}

/** A tool offered to the model: name, description and JSON Schema of its input. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Record<string, unknown>;
}
