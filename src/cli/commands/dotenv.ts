import { Command } from 'commander';
import { RyeError } from '../../errors/index.js';
import { readSigner } from '../../integrity/index.js';
import { ensureSelfTrusted, keyDir } from '../../items/index.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

/**
 * `rye dotenv sign|verify`: the project `.env` counts only when signed by a
 * trusted key (docs/environment.md). Names are printed, values never.
 */
export function dotenvCommand(io: CliIo, run: Runner): Command {
  const dotenv = new Command('dotenv').description(
    "sign or check the project .env (rye applies a signed .env's names that a tool declares)",
  );

  withCommonOptions(dotenv.command('sign'))
    .description('sign <project>/.env in place with your key (refused if it sets a loader name)')
    .action((options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        // Loaded on use, like execute: the other commands never load the executor.
        const { signProjectDotenv } = await import('../../executor/index.js');
        const signer = await readSigner(keyDir(ctx.spaces));
        const result = await signProjectDotenv(ctx.spaces.project, signer);
        const trustedAt = await ensureSelfTrusted(ctx.spaces, signer);
        emit(
          ctx,
          {
            ok: true,
            path: result.path,
            fingerprint: signer.fingerprint,
            content_hash: result.signed.fields.contentHash,
            names: result.names,
            warnings: result.warnings,
            self_trusted: trustedAt,
          },
          [
            `signed  ${result.path}  (${result.names.join(', ') || 'no names'})`,
            ...result.warnings.map((w) => `warning: ${w}`),
            ...(trustedAt === null
              ? []
              : [`Trusted your key ${signer.fingerprint} in user space: ${trustedAt}`]),
            'A tool receives only the names its signed env_config.dotenv declares.',
          ],
        );
        return 0;
      }),
    );

  withCommonOptions(dotenv.command('verify'))
    .description('check the signature of <project>/.env against the user and system trusted keys')
    .action((options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const { loadDotenvTrust, readProjectDotenv } = await import('../../executor/index.js');
        const trust = await loadDotenvTrust(ctx.spaces);
        const found = await readProjectDotenv(ctx.spaces.project, trust);
        if (found.status === 'absent') {
          throw new RyeError('FILE_UNREADABLE', `Cannot verify ${found.path}: there is none`, {
            path: found.path,
          });
        }
        if (found.status === 'unsigned') {
          throw new RyeError(
            'INTEGRITY_UNSIGNED',
            `Cannot verify ${found.path}: no signature line, so rye ignores it; sign it with \`rye dotenv sign\``,
            { path: found.path },
          );
        }
        const names = Object.keys(found.entries).sort();
        emit(
          ctx,
          {
            ok: true,
            path: found.path,
            fingerprint: found.fingerprint,
            signer: found.signer,
            names,
            warnings: found.warnings,
          },
          [
            `ok  ${found.path}  signed by ${found.signer === null || found.signer === '' ? 'an unnamed key' : found.signer} (${found.fingerprint})`,
            `  names: ${names.join(', ') || '-'}`,
            ...found.warnings.map((w) => `warning: ${w}`),
          ],
        );
        return 0;
      }),
    );
  return dotenv;
}
