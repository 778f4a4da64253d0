/**
 * A provider descriptor: the signed YAML item `rye/agent/providers/<id>` under
 * `.ai/tools/` that says which wire format to speak, where, with which
 * credential header, and what each model costs (THREADS.md §7). It is data,
 * never a tool: it declares no `tool_type` or `executor_id`, so the executor
 * refuses to run it, and parsing refuses any key it does not know.
 */
import { RyeError } from '../../errors/index.js';
import {
  checkAuth,
  checkBaseUrl,
  checkHeaders,
  checkModels,
  checkTiers,
  isMapping,
  type Issue,
  type ModelInfo,
  type ProviderAuth,
} from './descriptor-fields.js';
import { PROVIDER_FAMILIES, type ProviderFamily } from './types.js';

/** Where a descriptor's items live, under `.ai/tools/`. */
export const PROVIDER_ID_PREFIX = 'rye/agent/providers/';
/** The category a descriptor may declare (it must match its folder). */
export const PROVIDER_CATEGORY = 'rye/agent/providers';
/** Largest descriptor file read, before any parsing. */
export const MAX_DESCRIPTOR_BYTES = 64 * 1024;

/** A parsed, checked descriptor. Maps are plain objects: look keys up with `Object.hasOwn`. */
export interface ProviderDescriptor {
  readonly id: string;
  readonly family: ProviderFamily;
  /** The API root without a trailing slash, before any environment override. */
  readonly base_url: string;
  readonly auth: ProviderAuth;
  readonly headers: Readonly<Record<string, string>>;
  readonly tiers: Readonly<Record<string, string>>;
  readonly models: Readonly<Record<string, ModelInfo>>;
  /**
   * openai_chat only: the request field carrying the output cap. OpenAI's own
   * is `max_completion_tokens`; servers such as Ollama honour only `max_tokens`
   * and silently ignore the other, which would lift the budget's output cap.
   */
  readonly max_tokens_field?: 'max_completion_tokens' | 'max_tokens';
  readonly version?: string;
  readonly description?: string;
}

const KNOWN_KEYS = new Set([
  'family',
  'base_url',
  'auth',
  'headers',
  'tiers',
  'models',
  'max_tokens_field',
  'version',
  'category',
  'description',
]);
const SEMVER = /^\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.-]{1,64})?$/;

/**
 * Check a descriptor document (the YAML mapping, signature line removed) and
 * return it typed. Every issue is collected, then reported once.
 *
 * @throws RyeError PROVIDER_CONFIG_INVALID with `details.issues` ({field, message}[]).
 */
export function parseProviderDescriptor(
  id: string,
  doc: unknown,
  source: string,
): ProviderDescriptor {
  const issues: Issue[] = [];
  if (!isMapping(doc)) {
    issues.push({ field: '(document)', message: 'must be a YAML mapping' });
    throw invalid(id, source, issues);
  }
  for (const key of Object.keys(doc))
    if (!KNOWN_KEYS.has(key))
      issues.push({ field: key.slice(0, 64), message: 'is not a provider descriptor key' });
  const family = doc['family'];
  if (!PROVIDER_FAMILIES.includes(family as ProviderFamily))
    issues.push({ field: 'family', message: `must be one of ${PROVIDER_FAMILIES.join(', ')}` });
  const baseUrl = checkBaseUrl(doc['base_url'], 'base_url', issues);
  const auth = checkAuth(doc['auth'], family, issues);
  const headers = checkHeaders(doc['headers'], issues);
  const models = checkModels(doc['models'], issues);
  const declared = new Set(isMapping(doc['models']) ? Object.keys(doc['models']) : []);
  const tiers = checkTiers(doc['tiers'], declared, issues);
  const maxTokensField = doc['max_tokens_field'];
  if (
    maxTokensField !== undefined &&
    (family !== 'openai_chat' ||
      (maxTokensField !== 'max_completion_tokens' && maxTokensField !== 'max_tokens'))
  )
    issues.push({
      field: 'max_tokens_field',
      message: 'is for openai_chat only: max_completion_tokens or max_tokens',
    });
  const version = doc['version'];
  if (version !== undefined && (typeof version !== 'string' || !SEMVER.test(version)))
    issues.push({ field: 'version', message: 'must be a semantic version string like "1.0.0"' });
  const category = doc['category'];
  if (category !== undefined && category !== PROVIDER_CATEGORY)
    issues.push({ field: 'category', message: `must be "${PROVIDER_CATEGORY}" when present` });
  const description = doc['description'];
  if (description !== undefined && (typeof description !== 'string' || description.length > 1000))
    issues.push({ field: 'description', message: 'must be a string of at most 1000 characters' });
  if (issues.length > 0 || baseUrl === undefined || auth === undefined) {
    throw invalid(id, source, issues);
  }
  return {
    id,
    family: family as ProviderFamily,
    base_url: baseUrl,
    auth,
    headers,
    tiers,
    models,
    ...(maxTokensField === 'max_tokens' || maxTokensField === 'max_completion_tokens'
      ? { max_tokens_field: maxTokensField }
      : {}),
    ...(typeof version === 'string' ? { version } : {}),
    ...(typeof description === 'string' ? { description } : {}),
  };
}

function invalid(id: string, source: string, issues: readonly Issue[]): RyeError {
  const shown = issues.slice(0, 20);
  const list = shown.map((i) => `${i.field}: ${i.message}`).join('; ');
  const count = issues.length === 1 ? '1 issue' : `${issues.length} issues`;
  return new RyeError(
    'PROVIDER_CONFIG_INVALID',
    `Cannot use provider descriptor ${id} (${source}): ${count}: ${list}`,
    { provider: id, path: source, issues: shown },
  );
}
