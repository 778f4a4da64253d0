import { join } from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { escapeControlInJson } from '../../platform/index.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import type { Runner } from '../runner.js';

type ServeOptions = CommonOptions & {
  host: string;
  port: number;
  data?: string;
  database?: string;
  key?: string;
  maxBlobBytes?: number;
  maxManifestBytes?: number;
  maxAccountBytes?: number;
  maxUploadsPerAccount?: number;
  maxUploadBytesInFlight?: number;
  authAttemptsPerMinute?: number;
  indexTtl?: number;
  logLevel: 'info' | 'warn' | 'error';
};

const HELP = `
Storage: without --database the registry keeps everything in the data folder
(registry.db, SQLite, and blobs/). With --database postgres://USER@HOST:PORT/DB
(?schema=NAME optional) rows and blobs live in PostgreSQL, and several
instances can serve one database behind a load balancer. Prefer the
RYE_REGISTRY_DATABASE_URL variable for a URL holding a password (argv is
visible to other users). Instances sharing a
database MUST share one registry key: pass the same --key FILE to each (mode
0600), or clients pinning the key will refuse the others.

Quotas and caps: every push and blob upload is refused before its body is read
when its declared size passes the cap (413), when its account already has
--max-uploads-per-account uploads in progress (429), when the server already
holds --max-upload-bytes-in-flight upload bytes (503), or when it would take
the account past --max-account-bytes stored (507). Uploads in progress and
unpublished blobs are counted in this process: a restart forgets unpublished
blobs, and instances sharing a database count their own uploads only.

The registry key (Ed25519, PKCS8 PEM) is created on first start at
<data>/registry-key.pem with mode 0600; a key file readable by group or others
is refused. Its public half is served at /.well-known/rye-registry.json.

Output: one JSON line {"msg":"listening","url":...,"fingerprint":...,"store":...}
on stdout once listening (with --port 0, read the port from it); start-up and
request logs are JSON lines on stderr. SIGINT or SIGTERM stop the server
gracefully (exit 0).`;

/** `rye registry serve`: run a registry (protocol v1) until SIGINT/SIGTERM. */
export function addServeCommand(registry: Command, io: CliIo, run: Runner): void {
  withCommonOptions(registry.command('serve'))
    .description('run a registry server: accounts, signed pushes, attested pulls')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'TCP port; 0 picks a free one', integer(0, 65535), 8080)
    .option('--data <dir>', 'data folder (default: <user space>/.ai/registry/server)')
    .option(
      '--database <url>',
      'postgres:// URL of a shared database (default: $RYE_REGISTRY_DATABASE_URL, else SQLite in --data)',
    )
    .option('--key <file>', 'registry key file (default: <data>/registry-key.pem)')
    .option(
      '--max-blob-bytes <n>',
      'largest blob upload accepted, in bytes (default 67108864 = 64 MiB)',
      integer(1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--max-manifest-bytes <n>',
      'largest bundle manifest accepted, in bytes (default 2097152 = 2 MiB, ~16,000 files)',
      integer(1, 16 * 1024 * 1024),
    )
    .option(
      '--max-account-bytes <n>',
      'stored bytes per account: its published versions plus unpublished uploads (default 1073741824 = 1 GiB)',
      integer(1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--max-uploads-per-account <n>',
      'pushes and blob uploads one account may have in progress at once (default 8)',
      integer(1, 10_000),
    )
    .option(
      '--max-upload-bytes-in-flight <n>',
      'request bytes all uploads in progress may hold at once (default 536870912 = 512 MiB)',
      integer(1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--auth-attempts-per-minute <n>',
      'sign-up and log-in attempts allowed per client address and minute (default 30)',
      integer(1, 1_000_000),
    )
    .option(
      '--index-ttl <seconds>',
      'validity of a signed package index; clients refuse an older one (default 86400 = 24 h)',
      integer(1, 31 * 86_400),
    )
    .addOption(
      new Option('--log-level <level>', 'least severe log line written to stderr')
        .choices(['info', 'warn', 'error'])
        .default('info'),
    )
    .addHelpText('after', HELP)
    .action((options: ServeOptions) =>
      run(options, async () => {
        const { jsonLines, startRegistryServer } = await import('../../registry/server/index.js');
        const ctx = contextOf(options, io);
        // Listen for signals before the listening line goes out: a script that
        // reads it and stops the server at once must not kill it mid-start.
        const signals = untilSignalled();
        // Request logs quote what clients sent (paths, names): JSON escapes C0,
        // and escapeControlInJson the rest a terminal tailing the log would act on.
        const stderr = jsonLines((line) => io.stderr(escapeControlInJson(line)), options.logLevel);
        const server = await startRegistryServer({
          host: options.host,
          port: options.port,
          dataDir: options.data ?? join(ctx.spaces.user, '.ai', 'registry', 'server'),
          databaseUrl: options.database ?? io.env['RYE_REGISTRY_DATABASE_URL'],
          keyFile: options.key,
          limits: {
            ...(options.maxBlobBytes === undefined ? {} : { blobBytes: options.maxBlobBytes }),
            ...(options.maxManifestBytes === undefined
              ? {}
              : { manifestBytes: options.maxManifestBytes }),
            ...(options.maxAccountBytes === undefined
              ? {}
              : { accountBytes: options.maxAccountBytes }),
            ...(options.maxUploadsPerAccount === undefined
              ? {}
              : { uploadsPerAccount: options.maxUploadsPerAccount }),
            ...(options.maxUploadBytesInFlight === undefined
              ? {}
              : { uploadBytesInFlight: options.maxUploadBytesInFlight }),
            ...(options.authAttemptsPerMinute === undefined
              ? {}
              : { authAttemptsPerMinute: options.authAttemptsPerMinute }),
          },
          ...(options.indexTtl === undefined ? {} : { index: { ttlSeconds: options.indexTtl } }),
          log: (entry) => {
            if (entry['msg'] === 'listening')
              io.stdout(`${escapeControlInJson(JSON.stringify(entry))}\n`);
            else stderr(entry);
          },
        }).catch((error: unknown) => {
          signals.stop();
          throw error;
        });
        await signals.received;
        await server.close();
        return 0;
      }),
    );
}

/** The first SIGINT or SIGTERM; `stop()` removes the handlers (a failed start). */
function untilSignalled(): { received: Promise<void>; stop(): void } {
  let stop = (): void => undefined;
  const received = new Promise<void>((resolve) => {
    stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return { received, stop: () => stop() };
}

function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!(n >= min && n <= max))
      throw new InvalidArgumentError(`expected an integer ${min}..${max}`);
    return n;
  };
}
