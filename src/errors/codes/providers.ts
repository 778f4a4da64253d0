import type { CodeTable } from './code-table.js';

/** Providers: descriptors, model resolution and provider requests (THREADS.md section 7). */
export const PROVIDER_CODES = {
  PROVIDER_NOT_FOUND: {
    class: 'failure',
    hint: 'Providers resolve from user then system space only (rye/agent/providers/<id> under .ai/tools/); check the id, <model provider> and $RYE_PROVIDER.',
  },
  PROVIDER_CONFIG_INVALID: {
    class: 'failure',
    hint: 'Fix every listed issue in the provider descriptor (or in ANTHROPIC_BASE_URL / OPENAI_BASE_URL), then sign it again; see docs/providers.md.',
  },
  PROVIDER_INSECURE_TRANSPORT: {
    class: 'integrity',
    hint: 'Provider credentials travel only over https://, or plain http:// to a loopback address (127.0.0.1, ::1, localhost).',
  },
  PROVIDER_MODEL_UNKNOWN: {
    class: 'failure',
    hint: 'Name a model the provider descriptor lists under models, or a tier it maps under tiers.',
  },
  PROVIDER_AUTH_MISSING: {
    class: 'failure',
    hint: "Set the environment variable the provider descriptor's auth.env names (in your shell, not a project .env).",
  },
  PROVIDER_AUTH_FAILED: {
    class: 'failure',
    hint: 'The provider refused the credential (401/403): check the key in the variable auth.env names and its permissions; nothing was retried.',
  },
  PROVIDER_QUOTA_EXCEEDED: {
    class: 'failure',
    hint: 'The provider reports a quota, billing or spend limit: retrying will not help until the account is topped up or the limit raised.',
  },
  PROVIDER_REQUEST_REJECTED: {
    class: 'failure',
    hint: 'The provider refused the request itself (400/404/413/422): the details carry its message; a retry would be refused the same way.',
  },
  PROVIDER_REQUEST_FAILED: {
    class: 'failure',
    hint: 'The provider failed transiently (429, 5xx, 529, reset) on every attempt allowed; retry later or check the provider status.',
  },
  PROVIDER_RESPONSE_INVALID: {
    class: 'failure',
    hint: 'The provider sent a response that does not follow its wire format (malformed tool arguments, duplicate call ids, a cut stream).',
  },
  PROVIDER_REQUEST_ABORTED: {
    class: 'failure',
    hint: 'The provider request was aborted (cancel, deadline or interrupt) before a response arrived.',
  },
} as const satisfies CodeTable;
