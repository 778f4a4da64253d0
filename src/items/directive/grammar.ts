/**
 * The closed vocabularies of the directive grammar (docs/directives.md,
 * THREADS.md §3, §5, §12). Anything outside them is a validation issue, never
 * dropped: a typo must not disable a limit or a hook.
 */

/** Value types of `<input type>` and `<output type>`. */
export const VALUE_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

/** Permission verbs (the four operations). */
export const PERMISSION_VERBS = ['execute', 'search', 'load', 'sign'] as const;
/** Item types a grant may name. */
export const PERMISSION_TYPES = ['tool', 'directive', 'knowledge'] as const;

/** Limit short names (THREADS.md §5), in display order. */
export const LIMIT_NAMES = [
  'turns',
  'tokens',
  'spend',
  'spawns',
  'depth',
  'duration_seconds',
  'tool_calls',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/**
 * The highest value each integer limit accepts (0 = unlimited is always
 * accepted). Well above any real run, low enough that a stray digit is caught:
 * depth 15 because a capability token holds at most 16 blocks (root + 15).
 */
export const LIMIT_MAXIMA: Readonly<Record<Exclude<LimitName, 'spend'>, number>> = {
  turns: 10_000,
  tokens: 100_000_000,
  spawns: 1_000,
  depth: 15,
  duration_seconds: 604_800,
  tool_calls: 100_000,
};
/** Highest `spend` in USD: keeps every amount exact in nano-USD below 2^53. */
export const SPEND_MAX_USD = 10_000;

/** The `max_*` spelling the seed uses, for each limit. */
export function limitAlias(name: LimitName): string {
  return `max_${name}`;
}

/** Map a written limit key (short name or `max_` alias) to its short name. */
export function limitNameOf(key: string): LimitName | undefined {
  const short = key.startsWith('max_') ? key.slice(4) : key;
  return (LIMIT_NAMES as readonly string[]).includes(short) ? (short as LimitName) : undefined;
}

/** Hook result modes. */
export const RESULT_MODES = ['observation', 'discard', 'control'] as const;
export type ResultMode = (typeof RESULT_MODES)[number];

/** `when` values of a `limit` hook. */
export const LIMIT_WHEN = [
  'turns_exceeded',
  'tokens_exceeded',
  'spend_exceeded',
  'duration_exceeded',
  'spawns_exceeded',
  'depth_exceeded',
  'tool_calls_exceeded',
  'budget_denied',
] as const;

interface HookEventRule {
  /** Allowed result modes, the default first. */
  readonly modes: readonly ResultMode[];
  /** Allowed `when` values; empty = the attribute is not allowed. */
  readonly when: readonly string[];
  /** Whether the `ratio` attribute is allowed. */
  readonly ratio: boolean;
}

/** Hook events and their rules (THREADS.md §12). */
export const HOOK_EVENTS = {
  thread_started: { modes: ['observation', 'discard'], when: [], ratio: false },
  after_step: { modes: ['discard', 'observation'], when: [], ratio: false },
  limit: { modes: ['discard'], when: LIMIT_WHEN, ratio: false },
  error: { modes: ['control', 'discard'], when: [], ratio: false },
  context_window_pressure: { modes: ['control'], when: [], ratio: true },
  after_complete: { modes: ['discard'], when: [], ratio: false },
} as const satisfies Record<string, HookEventRule>;
export type HookEvent = keyof typeof HOOK_EVENTS;

/** Default `ratio` of a `context_window_pressure` hook. */
export const DEFAULT_PRESSURE_RATIO = 0.8;

/** Placeholders the runtime fills, never outputs: `{thread_id}` in a failure template. */
export const RUNTIME_PLACEHOLDERS: readonly string[] = ['thread_id'];

/** Names for inputs, outputs and params; `__proto__` is refused for every record built from them. */
export const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
