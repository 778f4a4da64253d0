import { Command } from 'commander';
import { generateKeyFiles, readPublicKeyFile } from '../../integrity/index.js';
import { keyDir } from '../../items/index.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

/** `rye keys generate|show`. */
export function keysCommand(io: CliIo, run: Runner): Command {
  const keys = new Command('keys').description('manage your signing key pair (in <user>/.ai/keys)');

  withCommonOptions(keys.command('generate'))
    .description('generate an Ed25519 key pair; refuses to replace one unless --force')
    .option('--force', 'replace an existing key pair')
    .action((options: CommonOptions & { force?: boolean }) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const files = await generateKeyFiles(keyDir(ctx.spaces), { force: options.force === true });
        emit(
          ctx,
          {
            ok: true,
            fingerprint: files.fingerprint,
            public_key_pem: files.publicKeyPem,
            private_key_path: files.privateKeyPath,
          },
          [
            `Generated key ${files.fingerprint}`,
            `  private key: ${files.privateKeyPath} (0600)`,
            `  public key:  ${files.publicKeyPath}`,
          ],
        );
        return 0;
      }),
    );

  withCommonOptions(keys.command('show'))
    .description('print the fingerprint and public key')
    .action((options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        const key = await readPublicKeyFile(keyDir(ctx.spaces));
        emit(ctx, { ok: true, fingerprint: key.fingerprint, public_key_pem: key.publicKeyPem }, [
          `fingerprint: ${key.fingerprint}`,
          ...key.publicKeyPem.trimEnd().split('\n'),
        ]);
        return 0;
      }),
    );
  return keys;
}
