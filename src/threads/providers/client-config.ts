import type { ProviderAuth } from './descriptor-fields.js';

/** Everything an adapter needs to build its SDK client: resolved, checked, with the key. */
export interface ClientConfig {
  /** The descriptor id, for messages and error details. */
  readonly provider: string;
  readonly baseUrl: string;
  readonly auth: ProviderAuth;
  /** The key itself (from the variable `auth.env` names). */
  readonly credential: string;
  /** Fixed headers from the descriptor (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  /** openai_chat: the field carrying the output cap. */
  readonly maxTokensField?: 'max_completion_tokens' | 'max_tokens';
  /** A `fetch` to use instead of the global one (tests, proxies). */
  readonly fetch?: typeof globalThis.fetch;
}

type LogFn = (message: string, ...rest: unknown[]) => void;

/**
 * The SDKs log to `console`, whose info and debug lines go to stdout (and
 * `ANTHROPIC_LOG` / `OPENAI_LOG` can turn them on). stdout may be an MCP
 * stdio channel, so every SDK line goes to stderr.
 */
export const STDERR_LOGGER: { error: LogFn; warn: LogFn; info: LogFn; debug: LogFn } = {
  error: (...args) => console.error(...args),
  warn: (...args) => console.error(...args),
  info: (...args) => console.error(...args),
  debug: (...args) => console.error(...args),
};
