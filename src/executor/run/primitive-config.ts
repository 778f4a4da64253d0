import { RyeError } from '../../errors/index.js';
import { FieldReader, type JsonObject } from '../../platform/index.js';
import { renderValue } from '../env/template.js';
import type { ChainElement, HttpRequest, SubprocessRequest, TemplateVars } from '../types.js';

/** The primitives this executor implements, by item id. */
export const PRIMITIVES = {
  subprocess: 'rye/core/primitives/subprocess',
  httpClient: 'rye/core/primitives/http_client',
} as const;

/**
 * The keys each primitive's `config_schema` declares (system/.ai/tools/rye/core/
 * primitives/*.yaml, `additionalProperties: false`). Anything else — a `shell:
 * true` copied from elsewhere, a misspelt `timout` — is refused, not ignored.
 */
const SUBPROCESS_KEYS: readonly string[] = [
  'command',
  'args',
  'args_by_extension',
  'cwd',
  'timeout',
  'input_data',
  'max_output_bytes',
];
const HTTP_KEYS: readonly string[] = [
  'method',
  'url',
  'headers',
  'body',
  'timeout',
  'auth',
  'retry',
  'max_response_bytes',
];
const HTTP_AUTH_KEYS: readonly string[] = ['type', 'token', 'key', 'header'];
const HTTP_RETRY_KEYS: readonly string[] = ['max_attempts', 'backoff', 'base_delay_ms'];

const DEFAULT_TIMEOUT_S = 300;
const DEFAULT_HTTP_TIMEOUT_S = 30;
const DEFAULT_MAX_OUTPUT = 10 * 1024 * 1024;

/**
 * The chain's configuration merged from the primitive toward the tool: each
 * element's keys override the ones below it, so a tool's own CONFIG wins over
 * its runtime's (shallow, key by key).
 */
export function mergeChainConfig(chain: readonly ChainElement[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (let i = chain.length - 1; i >= 0; i -= 1) Object.assign(merged, chain[i]?.config ?? {});
  return merged;
}

/**
 * Render the subprocess primitive's request. `${VAR}` and `{template}` are
 * substituted inside each argv element; a value can never add an element, so
 * a parameter cannot inject an argument or a command. No shell is involved.
 * Every problem is collected, unknown config keys included, then reported once.
 *
 * @throws RyeError EXECUTOR_CONFIG_INVALID
 */
export function planSubprocess(
  config: Record<string, unknown>,
  context: {
    toolExtension: string;
    env: Record<string, string>;
    vars: TemplateVars;
    cwd: string;
    source: string;
  },
): SubprocessRequest {
  const byExtension = config['args_by_extension'];
  const chosen =
    typeof byExtension === 'object' &&
    byExtension !== null &&
    Object.hasOwn(byExtension, context.toolExtension)
      ? (byExtension as Record<string, unknown>)[context.toolExtension]
      : config['args'];
  const render = (value: unknown): unknown => renderValue(value, context.env, context.vars);
  const command = render(config['command']);
  const args = render(chosen ?? []);
  const cwd =
    config['cwd'] === undefined || config['cwd'] === null ? context.cwd : render(config['cwd']);
  const stdin =
    config['input_data'] === undefined || config['input_data'] === null
      ? null
      : render(config['input_data']);
  const issues: string[] = [];
  const read = reader(issues);
  read.knownKeys(config, 'config', SUBPROCESS_KEYS);
  if (typeof command !== 'string' || command === '')
    issues.push('config.command must be a non-empty string');
  if (!Array.isArray(args) || args.some((a) => typeof a !== 'string'))
    issues.push('config.args must be a list of strings');
  if (typeof cwd !== 'string') issues.push('config.cwd must be a string');
  if (stdin !== null && typeof stdin !== 'string')
    issues.push('config.input_data must be a string');
  const timeout = read.positive(config, 'timeout', 'config', DEFAULT_TIMEOUT_S) ?? 0;
  const maxOutput = read.positive(config, 'max_output_bytes', 'config', DEFAULT_MAX_OUTPUT) ?? 0;
  if (issues.length > 0) throw invalid(context.source, issues);
  return {
    command: command as string,
    args: args as string[],
    cwd: cwd as string,
    env: context.env,
    stdin: stdin as string | null,
    timeoutMs: timeout * 1000,
    maxOutputBytes: maxOutput,
  };
}

/**
 * Render the http_client primitive's request (`${VAR}` in url, headers and
 * auth; `{templates}` too). The params are the JSON body unless config.body is set.
 * Every problem is collected, unknown keys (in config, auth and retry) included,
 * then reported once.
 *
 * @throws RyeError EXECUTOR_CONFIG_INVALID
 */
export function planHttp(
  config: Record<string, unknown>,
  context: {
    env: Record<string, string>;
    vars: TemplateVars;
    params: Record<string, unknown>;
    source: string;
  },
): HttpRequest {
  const rendered = renderValue(config, context.env, context.vars) as Record<string, unknown>;
  const issues: string[] = [];
  const read = reader(issues);
  read.knownKeys(rendered, 'config', HTTP_KEYS);
  const method = String(rendered['method'] ?? 'GET').toUpperCase();
  if (!['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'].includes(method))
    issues.push(`config.method ${method} is not supported`);
  const url = rendered['url'];
  if (typeof url !== 'string' || url === '') issues.push('config.url must be a string');
  const headers = stringMap(rendered['headers'], 'config.headers', issues);
  const auth = parseAuth(rendered['auth'], issues, read);
  const retry = mapping(rendered['retry'], 'config.retry', read);
  read.knownKeys(retry, 'config.retry', HTTP_RETRY_KEYS);
  const timeout = read.positive(rendered, 'timeout', 'config', DEFAULT_HTTP_TIMEOUT_S) ?? 0;
  const attempts = read.positive(retry, 'max_attempts', 'config.retry', 1) ?? 0;
  const baseDelay = read.positive(retry, 'base_delay_ms', 'config.retry', 200) ?? 0;
  const backoff = retry['backoff'] ?? 'exponential';
  if (backoff !== 'exponential' && backoff !== 'linear')
    issues.push('config.retry.backoff must be "exponential" or "linear"');
  const maxResponse =
    read.positive(rendered, 'max_response_bytes', 'config', DEFAULT_MAX_OUTPUT) ?? 0;
  if (issues.length > 0) throw invalid(context.source, issues);
  const bodyless = method === 'GET' || method === 'HEAD' || method === 'DELETE';
  return {
    method: method as HttpRequest['method'],
    url: url as string,
    headers,
    body: rendered['body'] ?? (bodyless ? null : context.params),
    auth,
    timeoutMs: timeout * 1000,
    retry: {
      maxAttempts: Math.floor(attempts),
      backoff: backoff === 'linear' ? 'linear' : 'exponential',
      baseDelayMs: baseDelay,
    },
    maxResponseBytes: maxResponse,
  };
}

function parseAuth(value: unknown, issues: string[], read: FieldReader): HttpRequest['auth'] {
  if (value === undefined || value === null) return null;
  // Not a mapping: the shape message below covers it. Only key names are quoted, never values.
  const auth =
    typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  read.knownKeys(auth, 'config.auth', HTTP_AUTH_KEYS);
  if (auth['type'] === 'bearer' && typeof auth['token'] === 'string')
    return { type: 'bearer', token: auth['token'] };
  if (auth['type'] === 'api_key' && typeof auth['key'] === 'string') {
    return {
      type: 'api_key',
      key: auth['key'],
      header: typeof auth['header'] === 'string' ? auth['header'] : 'X-API-Key',
    };
  }
  issues.push('config.auth must be {type: bearer, token} or {type: api_key, key, header?}');
  return null;
}

function stringMap(value: unknown, field: string, issues: string[]): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    issues.push(`${field} must be a mapping of strings`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' || typeof v === 'number') out[k] = String(v);
    else issues.push(`${field}.${k} must be a string`);
  }
  return out;
}

/** A mapping's entries, or `{}` (with an issue) for anything else; absent is `{}`. */
function mapping(value: unknown, field: string, read: FieldReader): JsonObject {
  if (value === undefined || value === null) return {};
  return read.object(value, field) ?? {};
}

/** Platform's FieldReader, its problems worded as this file words them, into `issues`. */
function reader(issues: string[]): FieldReader {
  return new FieldReader((field, problem) => {
    if (problem.kind === 'unknown_key')
      issues.push(`${field} is not a known key (known: ${problem.known.join(', ')})`);
    else if (problem.kind === 'type' && problem.expected === 'object')
      issues.push(`${field} must be a mapping`);
    else issues.push(`${field} must be a positive number`);
  });
}

function invalid(source: string, issues: string[]): RyeError {
  return new RyeError('EXECUTOR_CONFIG_INVALID', `Cannot run ${source}: ${issues.join('; ')}`, {
    source,
    issues,
  });
}
