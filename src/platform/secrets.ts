/**
 * Secrets never reach a transcript, a record, an error message, a log or an
 * MCP result: capability tokens (`rye-cap-v1.…`) and provider keys by
 * pattern, and by exact value every secret this process was given (the
 * values of its secret environment variables, remembered at start-up).
 * Whatever a provider echoes back, a key it was sent is replaced.
 */

/** What a redacted token reads as: the prefix kept, so the reader knows what was there. */
export const REDACTED_TOKEN = 'rye-cap-v1.[redacted]';
/** What any other redacted secret reads as. */
export const REDACTED_SECRET = '[redacted]';

/**
 * A capability token, its seal (`.` + base64url) included. Its alphabet holds
 * no character JSON escapes.
 */
export const TOKEN_PATTERN = /rye-cap-v1\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)?/g;
/** Anthropic and OpenAI key shapes (`sk-ant-…`, `sk-proj-…`, `sk-…`). */
const KEY_PATTERN = /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/g;

/**
 * Names whose values never reach a tool process, and are redacted wherever
 * they appear: provider keys, capability and MCP tokens, registry credentials.
 */
export const SECRET_ENV_NAMES: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'RYE_CAP_TOKEN',
  'RYE_MCP_HTTP_TOKEN',
  'RYE_REGISTRY_TOKEN',
  'RYE_REGISTRY_PASSWORD',
  'RYE_KEY_PASSPHRASE',
];

/** True for a secret's name (see {@link SECRET_ENV_NAMES}, and every `*_API_KEY`). */
export function isSecretEnvName(name: string): boolean {
  return SECRET_ENV_NAMES.includes(name) || /_API_KEY$/.test(name);
}

/** Shorter values are not redacted by value: they would match ordinary text. */
const MIN_SECRET_LENGTH = 8;
const known = new Set<string>();

/** Redact `value` by exact value from now on (and its JSON-escaped form). */
export function rememberSecret(value: string | undefined): void {
  if (value === undefined || value.length < MIN_SECRET_LENGTH) return;
  known.add(value);
  const escaped = JSON.stringify(value).slice(1, -1);
  if (escaped !== value) known.add(escaped);
}

/** Remember the value of every secret variable of `env`. */
export function rememberEnvSecrets(env: Readonly<Record<string, string | undefined>>): void {
  for (const [name, value] of Object.entries(env)) if (isSecretEnvName(name)) rememberSecret(value);
}

/**
 * `text` with every capability token, provider key and remembered secret
 * replaced. The replacements hold no quote or backslash, so serialized JSON
 * stays valid; redacting twice changes nothing.
 */
export function redactSecrets(text: string): string {
  let out = text.includes('rye-cap-v1.') ? text.replace(TOKEN_PATTERN, REDACTED_TOKEN) : text;
  if (out.includes('sk-')) out = out.replace(KEY_PATTERN, REDACTED_SECRET);
  for (const value of known) if (out.includes(value)) out = out.split(value).join(REDACTED_SECRET);
  return out;
}
