import { RyeError } from '../../../errors/index.js';
import { openPostgresStore } from './postgres-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { RegistryStore } from './types.js';

export interface OpenStoreOptions {
  /** The server's data folder: the SQLite store lives here when no database URL is given. */
  readonly dataDir: string;
  /** `postgres://` or `postgresql://` URL of a shared database; absent or empty for SQLite. */
  readonly databaseUrl?: string | undefined;
}

const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;

/**
 * Open the registry store the options name: PostgreSQL for a postgres URL,
 * otherwise SQLite in `dataDir`.
 * @throws RyeError USAGE_INVALID_ARGUMENT for a URL of any other scheme
 */
export async function openStore(options: OpenStoreOptions): Promise<RegistryStore> {
  const url = options.databaseUrl;
  if (url === undefined || url === '') return openSqliteStore(options.dataDir);
  if (POSTGRES_URL.test(url)) return openPostgresStore(url);
  // Name only the scheme: the rest of a database URL may hold a password.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1] ?? '(none)';
  throw new RyeError(
    'USAGE_INVALID_ARGUMENT',
    `Cannot open the registry database: scheme ${scheme} is not supported; use postgres:// or leave the URL out for SQLite`,
    { scheme },
  );
}
