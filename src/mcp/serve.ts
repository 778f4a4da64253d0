import { RyeError } from '../errors/index.js';
import { rememberEnvSecrets } from '../platform/index.js';
import { IN_PROCESS_TOOLS } from '../registry/in-process.js';
import { newApiToken } from '../integrity/index.js';
import type { Spaces } from '../items/index.js';
import { operatorAuthority, type Authority } from '../capabilities/index.js';
import type { OperationContext } from '../ops/index.js';
import { THREADS_PORT } from '../threads/root/index.js';
import { resolveAuthority, resolveCeilings } from './ceiling.js';
import { readCeilingSources, type CeilingSource } from './ceiling-source.js';
import { killRunningToolsIfAny } from './ops-door.js';
import { createRyeMcpServer, type RyeMcpServer } from './server.js';
import { serveStdio } from './stdio.js';

/** The environment variable that may hold the HTTP bearer token. */
export const HTTP_TOKEN_ENV = 'RYE_MCP_HTTP_TOKEN';
const MIN_TOKEN_LENGTH = 32;

export interface McpServeOptions {
  readonly spaces: Spaces;
  /** The server's environment: tools inherit it; `RYE_CAP_TOKEN` in it is a ceiling. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** `--ceiling`: a directive id or a token file. */
  readonly ceiling?: string;
  /** Streamable HTTP instead of stdio. */
  readonly http?: { readonly port: number; readonly host?: string; readonly allowRemote?: boolean };
  readonly version: string;
  /** `off`: the operator's `--no-sandbox`; never set by a client. */
  readonly sandbox?: 'off';
  /** One log line (stderr). */
  readonly log: (line: string) => void;
  /** Parent watchdog interval for stdio (ms). */
  readonly watchdogMs?: number;
}

/**
 * Start `rye mcp serve`: read the ceilings and check them once (a broken
 * ceiling refuses to start), say under which authority the server acts, then
 * serve stdio (the default) or Streamable HTTP. Each call resolves its
 * authority again.
 *
 * @throws RyeError MCP_CEILING_INVALID, the ceiling's verification codes,
 *   MCP_HTTP_BIND_REFUSED, USAGE_INVALID_ARGUMENT (a short HTTP token)
 */
export async function startMcpServer(options: McpServeOptions): Promise<void> {
  // Whatever a tool or a provider echoes, these values never reach a client.
  rememberEnvSecrets(options.env);
  const ceilings = readCeilingSources(options.ceiling, options.env, options.cwd);
  const authorityNow = authorityResolver(ceilings, options);
  const resolved = await resolveCeilings(ceilings, options);
  options.log(`project ${options.spaces.project}`);
  if (ceilings.length === 0)
    options.log(
      'no ceiling: every call acts with your full authority (all four operations on every item your keys trust)',
    );
  else {
    ceilings.forEach((ceiling, i) =>
      options.log(
        ceiling.kind === 'directive'
          ? `ceiling ${resolved.origins[i] ?? ceiling.directiveId}`
          : `ceiling token from ${ceiling.origin}: ${resolved.origins[i] ?? ''}`,
      ),
    );
    options.log(`every call is capped at: ${resolved.authority.describe()}`);
  }
  const create = (): RyeMcpServer =>
    createRyeMcpServer({
      version: options.version,
      log: options.log,
      contextFor: async (signal): Promise<OperationContext> => ({
        spaces: options.spaces,
        env: options.env,
        authority: await authorityNow(),
        signal,
        inProcessTools: IN_PROCESS_TOOLS,
        threads: THREADS_PORT,
        ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
      }),
    });
  if (options.http === undefined) {
    await serveStdio(create(), {
      log: options.log,
      ...(options.watchdogMs === undefined ? {} : { watchdogMs: options.watchdogMs }),
    });
    options.log('serving on stdio');
    return;
  }
  const token = httpToken(options);
  // Loaded only for --http: Hono and the HTTP transport stay out of stdio start-up.
  const { serveHttp } = await import('./http.js');
  const running = await serveHttp({
    ...options.http,
    token: token.value,
    createServer: create,
    log: options.log,
  });
  options.log(`serving Streamable HTTP at ${running.url}`);
  if (token.generated)
    options.log(`bearer token: ${token.value} (send it as "Authorization: Bearer <token>")`);
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      const killed = killRunningToolsIfAny();
      options.log(`stopping: ${signal}${killed > 0 ? `; killed ${killed} tool group(s)` : ''}`);
      // The listener is closed but nothing is awaited past 1 s (THREADS.md §13).
      setTimeout(() => process.exit(0), 900).unref();
      void running.close().then(() => process.exit(0));
    });
}

function authorityResolver(
  ceilings: readonly CeilingSource[],
  options: McpServeOptions,
): () => Promise<Authority> {
  if (ceilings.length === 0) {
    const operator = operatorAuthority();
    return () => Promise.resolve(operator);
  }
  return () => resolveAuthority(ceilings, { spaces: options.spaces, env: options.env });
}

function httpToken(options: McpServeOptions): { value: string; generated: boolean } {
  const set = options.env[HTTP_TOKEN_ENV];
  if (set === undefined || set === '') return { value: newApiToken().secret, generated: true };
  if (set.length < MIN_TOKEN_LENGTH || /\s/.test(set))
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot use ${HTTP_TOKEN_ENV}: a bearer token needs at least ${MIN_TOKEN_LENGTH} characters and no spaces`,
      { variable: HTTP_TOKEN_ENV },
    );
  return { value: set, generated: false };
}
