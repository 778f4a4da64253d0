import { RyeError } from '../../../errors/index.js';

/** A PostgreSQL URL split into what pg connects with and the schema rye keeps to. */
export interface PostgresTarget {
  /** The URL without rye's own `schema` parameter. */
  readonly connectionString: string;
  /** The schema every table lives in, or null for the server's default search path. */
  readonly schema: string | null;
  /** `host:port/database`, for messages (never the password). */
  readonly label: string;
}

// Lowercase only: unquoted identifiers in search_path are folded to lowercase,
// so a mixed-case name would point CREATE SCHEMA and search_path apart.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Parse `postgres[ql]://…[?schema=name]`. A URL without a user name gets
 * `defaultUser`, as libpq (psql) would use the login name; pg itself would
 * send none. The URL may carry a password, so errors name only the part at
 * fault.
 * @throws RyeError USAGE_INVALID_ARGUMENT
 */
export function parsePostgresUrl(url: string, defaultUser: string): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      'Cannot open the PostgreSQL registry database: the database URL does not parse',
      {},
      { cause: error },
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot open the PostgreSQL registry database: ${parsed.protocol} is not postgres: or postgresql:`,
      { scheme: parsed.protocol },
    );
  }
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  if (schema !== null && !SCHEMA_NAME.test(schema)) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot open the PostgreSQL registry database: schema ${JSON.stringify(schema)} is not a lowercase identifier`,
      { schema },
    );
  }
  if (parsed.username === '') parsed.username = encodeURIComponent(defaultUser);
  return {
    connectionString: parsed.toString(),
    schema,
    label: `${parsed.host}${parsed.pathname}`,
  };
}
