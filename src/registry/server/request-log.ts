import type { MiddlewareHandler } from 'hono';
import type { LogFn, RegistryEnv } from './context.js';

/**
 * One JSON line per request: `{time, level, msg:'request', method, path,
 * status, ms, code?}`. Never the query string, headers or bodies (tokens,
 * passwords). 5xx lines are `error`, 4xx `warn`, the rest `info`.
 */
export function requestLog(log: LogFn): MiddlewareHandler<RegistryEnv> {
  return async (c, next) => {
    const start = performance.now();
    await next();
    const status = c.res.status;
    const code = c.get('errorCode');
    log({
      time: new Date().toISOString(),
      // 503 and 507 are refusals (busy, quota), not faults.
      level:
        status >= 500 && status !== 503 && status !== 507
          ? 'error'
          : status >= 400
            ? 'warn'
            : 'info',
      msg: 'request',
      method: c.req.method,
      path: c.req.path.slice(0, 512),
      status,
      ms: Math.round((performance.now() - start) * 100) / 100,
      ...(code === undefined ? {} : { code }),
    });
  };
}

const LEVELS = { info: 0, warn: 1, error: 2 } as const;
export type LogLevel = keyof typeof LEVELS;

/** A log function writing JSON lines with `write`, dropping entries below `level`. */
export function jsonLines(write: (line: string) => void, level: LogLevel = 'info'): LogFn {
  const min = LEVELS[level];
  return (entry) => {
    const entryLevel = LEVELS[(entry['level'] as LogLevel | undefined) ?? 'info'] ?? 0;
    if (entryLevel >= min) write(`${JSON.stringify(entry)}\n`);
  };
}
