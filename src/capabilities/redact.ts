/** Tokens (and every other secret) redacted wherever shown: src/platform/secrets.ts. */
export { REDACTED_TOKEN, redactSecrets as redactTokens } from '../platform/index.js';
