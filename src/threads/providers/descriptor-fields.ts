/**
 * Field checks for provider descriptors (untrusted until verified, and even
 * then checked strictly: a typo must never widen what a descriptor does).
 * Each check appends to `issues` and returns the typed value, or `undefined`.
 */

/** How the credential is sent: `x-api-key: <key>` or `authorization: Bearer <key>`. */
export interface ProviderAuth {
  readonly header: 'x-api-key' | 'authorization';
  readonly scheme?: 'Bearer';
  /** The process environment variable holding the key. */
  readonly env: string;
}

/** USD per million tokens, as exact decimal strings (THREADS.md §6). */
export interface ModelPricing {
  readonly input: string;
  readonly output: string;
  readonly cache_read?: string;
  readonly cache_write?: string;
}

export interface ModelInfo {
  readonly context_window: number;
  readonly output_limit: number;
  readonly pricing: ModelPricing;
}

export interface Issue {
  readonly field: string;
  readonly message: string;
}

const MAX_MODELS = 256;
const MAX_TIERS = 64;
const MAX_HEADERS = 16;
const MAX_CONTEXT_WINDOW = 100_000_000;
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const TIER = /^[a-z][a-z0-9_-]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9!#$%&'*+.^_`|~-]{0,63}$/;
const HEADER_VALUE = /^[\x20-\x7e]{0,1024}$/;
/** USD per million tokens: digits, at most 9 fractional digits; no sign, exponent or float. */
const DECIMAL = /^(?:0|[1-9][0-9]{0,5})(?:\.[0-9]{1,9})?$/;
/** Headers the adapter, the SDK or HTTP itself owns: a descriptor never sets them. */
const RESERVED_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'cookie',
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'upgrade',
  'expect',
]);
const PRICING_KEYS = new Set(['input', 'output', 'cache_read', 'cache_write']);
const MODEL_KEYS = new Set(['context_window', 'output_limit', 'pricing']);
const AUTH_KEYS = new Set(['header', 'scheme', 'env']);

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An absolute http(s) URL without credentials, query or fragment; returned without a trailing slash. */
export function checkBaseUrl(value: unknown, field: string, issues: Issue[]): string | undefined {
  const problem = baseUrlProblem(value);
  if (problem === undefined) return (value as string).replace(/\/+$/, '');
  issues.push({ field, message: problem });
  return undefined;
}

/** Why a base URL is unusable, or undefined when it is fine (syntax only; transport is checked later). */
export function baseUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048)
    return 'must be an http:// or https:// URL of at most 2048 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use http:// or https://';
  if (url.username !== '' || url.password !== '')
    return 'must not carry credentials (use auth.env)';
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#'))
    return 'must not carry a query or fragment';
  return undefined;
}

export function checkAuth(
  value: unknown,
  family: unknown,
  issues: Issue[],
): ProviderAuth | undefined {
  if (!isMapping(value)) {
    issues.push({ field: 'auth', message: 'must be a mapping {header, scheme?, env}' });
    return undefined;
  }
  const before = issues.length;
  unknownKeys(value, AUTH_KEYS, 'auth', issues);
  const header = typeof value['header'] === 'string' ? value['header'].toLowerCase() : undefined;
  const scheme = value['scheme'];
  const env = value['env'];
  if (header !== 'x-api-key' && header !== 'authorization')
    issues.push({ field: 'auth.header', message: 'must be x-api-key or authorization' });
  if (header === 'authorization' && scheme !== 'Bearer')
    issues.push({ field: 'auth.scheme', message: 'must be Bearer with the authorization header' });
  if (header === 'x-api-key' && scheme !== undefined)
    issues.push({ field: 'auth.scheme', message: 'must be absent with the x-api-key header' });
  // The OpenAI SDK sends its key only as `Authorization: Bearer`; no option yields another header.
  if (family === 'openai_chat' && header === 'x-api-key')
    issues.push({
      field: 'auth.header',
      message: 'openai_chat sends its key as authorization: Bearer',
    });
  if (typeof env !== 'string' || !ENV_NAME.test(env))
    issues.push({ field: 'auth.env', message: 'must be an environment variable name' });
  if (issues.length > before) return undefined;
  return header === 'authorization'
    ? { header, scheme: 'Bearer', env: env as string }
    : { header: 'x-api-key', env: env as string };
}

export function checkHeaders(value: unknown, issues: Issue[]): Record<string, string> {
  if (value === undefined) return {};
  if (!isMapping(value)) {
    issues.push({ field: 'headers', message: 'must be a mapping of header name to text' });
    return {};
  }
  const out: Record<string, string> = {};
  const entries = Object.entries(value);
  if (entries.length > MAX_HEADERS)
    issues.push({ field: 'headers', message: `must hold at most ${MAX_HEADERS} headers` });
  for (const [name, text] of entries.slice(0, MAX_HEADERS)) {
    const field = `headers.${name.slice(0, 64)}`;
    const lower = name.toLowerCase();
    // A header name starts with a letter or digit (no `__proto__`-style keys).
    if (!HEADER_NAME.test(name)) {
      issues.push({ field, message: 'is not a header name' });
      continue;
    }
    if (RESERVED_HEADERS.has(lower))
      issues.push({ field, message: 'is set by the adapter or HTTP, never by a descriptor' });
    else if (Object.hasOwn(out, lower)) issues.push({ field, message: 'is set twice' });
    if (typeof text !== 'string' || !HEADER_VALUE.test(text))
      issues.push({ field, message: 'must be printable ASCII text of at most 1024 characters' });
    else out[lower] = text;
  }
  return out;
}

export function checkModels(value: unknown, issues: Issue[]): Record<string, ModelInfo> {
  const out: Record<string, ModelInfo> = {};
  if (!isMapping(value) || Object.keys(value).length === 0) {
    issues.push({
      field: 'models',
      message: 'must map at least one model id to its limits and prices',
    });
    return out;
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_MODELS)
    issues.push({ field: 'models', message: `must list at most ${MAX_MODELS} models` });
  for (const [id, spec] of entries.slice(0, MAX_MODELS)) {
    const field = `models.${id.slice(0, 128)}`;
    if (!MODEL_ID.test(id)) {
      issues.push({ field, message: 'is not a model id' });
      continue;
    }
    const info = checkModel(spec, field, issues);
    if (info !== undefined) out[id] = info;
  }
  return out;
}

function checkModel(value: unknown, field: string, issues: Issue[]): ModelInfo | undefined {
  if (!isMapping(value)) {
    issues.push({ field, message: 'must be a mapping {context_window, output_limit, pricing}' });
    return undefined;
  }
  const before = issues.length;
  unknownKeys(value, MODEL_KEYS, field, issues);
  const window = value['context_window'];
  const limit = value['output_limit'];
  if (!isCount(window, MAX_CONTEXT_WINDOW))
    issues.push({ field: `${field}.context_window`, message: 'must be a whole number of tokens' });
  if (
    !isCount(limit, MAX_CONTEXT_WINDOW) ||
    (isCount(window, MAX_CONTEXT_WINDOW) && limit > window)
  )
    issues.push({
      field: `${field}.output_limit`,
      message: 'must be a whole number of tokens, at most the context window',
    });
  const pricing = checkPricing(value['pricing'], `${field}.pricing`, issues);
  if (issues.length > before || pricing === undefined) return undefined;
  return { context_window: window as number, output_limit: limit as number, pricing };
}

function checkPricing(value: unknown, field: string, issues: Issue[]): ModelPricing | undefined {
  if (!isMapping(value)) {
    issues.push({ field, message: 'must be a mapping {input, output, cache_read?, cache_write?}' });
    return undefined;
  }
  const before = issues.length;
  unknownKeys(value, PRICING_KEYS, field, issues);
  for (const key of PRICING_KEYS) {
    const price = value[key];
    if (price === undefined && (key === 'cache_read' || key === 'cache_write')) continue;
    if (typeof price !== 'string' || !DECIMAL.test(price))
      issues.push({
        field: `${field}.${key}`,
        message: 'must be a quoted decimal string of USD per million tokens, like "3.00"',
      });
  }
  if (issues.length > before) return undefined;
  const text = (key: string): string => value[key] as string;
  return {
    input: text('input'),
    output: text('output'),
    ...(value['cache_read'] === undefined ? {} : { cache_read: text('cache_read') }),
    ...(value['cache_write'] === undefined ? {} : { cache_write: text('cache_write') }),
  };
}

/** Tiers name models the descriptor declares (a model with its own issues is reported once, there). */
export function checkTiers(
  value: unknown,
  declared: ReadonlySet<string>,
  issues: Issue[],
): Record<string, string> {
  if (value === undefined) return {};
  const out: Record<string, string> = {};
  if (!isMapping(value)) {
    issues.push({ field: 'tiers', message: 'must map tier names to listed model ids' });
    return out;
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_TIERS)
    issues.push({ field: 'tiers', message: `must hold at most ${MAX_TIERS} tiers` });
  for (const [tier, model] of entries.slice(0, MAX_TIERS)) {
    const field = `tiers.${tier.slice(0, 32)}`;
    if (!TIER.test(tier)) issues.push({ field, message: 'is not a tier name ([a-z][a-z0-9_-]*)' });
    else if (typeof model !== 'string' || !declared.has(model))
      issues.push({ field, message: 'must name a model listed under models' });
    else out[tier] = model;
  }
  return out;
}

function unknownKeys(
  value: Record<string, unknown>,
  known: ReadonlySet<string>,
  field: string,
  issues: Issue[],
): void {
  for (const key of Object.keys(value))
    if (!known.has(key))
      issues.push({ field: `${field}.${key.slice(0, 64)}`, message: 'is not a known key' });
}

function isCount(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= max;
}
