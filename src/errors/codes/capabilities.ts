import type { CodeTable } from './code-table.js';

/** Capabilities: capability strings and capability tokens (docs/capabilities.md). */
export const CAPABILITY_CODES = {
  CAPABILITY_INVALID: {
    class: 'usage',
    hint: 'Capabilities are rye.<verb>.<type>.<pattern> (verb execute|search|load|sign, type tool|directive|knowledge) with pattern *, an exact id or prefix/*; see docs/capabilities.md.',
  },
  CAPABILITY_DENIED: {
    class: 'integrity',
    hint: 'The authority this call runs under does not hold the capability named; grant it in the directive <permissions> (or --caps), or run it as the operator.',
  },
  CAPABILITY_COMMAND_REFUSED: {
    class: 'integrity',
    hint: 'A process held to a RYE_CAP_TOKEN runs only the four operations, thread commands on threads it reaches and an attenuating `rye cap mint`; run anything else as the operator, without the token (docs/capabilities.md).',
  },
  CAPABILITY_TOKEN_INVALID: {
    class: 'integrity',
    hint: 'The capability token (RYE_CAP_TOKEN or a ceiling file) failed the check in details.reason; nothing runs under it. Mint a new one with `rye cap mint`.',
  },
  CAPABILITY_TTL_INVALID: {
    class: 'usage',
    hint: '--ttl is a duration such as 90s, 30m, 12h or 7d (at least 1 s, at most 365 d).',
  },
} as const satisfies CodeTable;
