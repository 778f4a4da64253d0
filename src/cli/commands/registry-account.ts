import { Command } from 'commander';
import type { CliIo } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';
import {
  readPassword,
  registryClient,
  registryContext,
  withRegistryOptions,
  type RegistryCliOptions,
} from './registry-options.js';

type CredentialOptions = RegistryCliOptions & { username: string; passwordStdin?: boolean };

/** `rye registry signup|login|logout|whoami|keys add|keys remove|keys list|pin`. */
export function addAccountCommands(registry: Command, io: CliIo, run: Runner): void {
  for (const mode of ['signup', 'login'] as const) {
    withRegistryOptions(registry.command(mode))
      .description(
        mode === 'signup'
          ? 'create an account (your username is your namespace) and save its token'
          : 'log in and save a token for this registry (in <user>/.ai/registry, mode 0600)',
      )
      .requiredOption('--username <name>', 'username: 2-39 characters [a-z0-9_-]')
      .option(
        '--password-stdin',
        'read the password from standard input (for scripts; on a terminal you are asked)',
      )
      .action((options: CredentialOptions) =>
        run(options, async () => {
          const password = await readPassword(io, options.passwordStdin, {
            confirm: mode === 'signup',
          });
          const { ctx, session } = await registryContext(options, io);
          const result = await (
            await registryClient()
          ).openAccountSession(session, mode, options.username, password);
          emit(ctx, result, [
            `${mode === 'signup' ? 'Signed up' : 'Logged in'} to ${session.endpoint.url} as ${String(result['username'])}`,
            `  token saved in ${String(result['credentials_path'])}`,
          ]);
          return 0;
        }),
      );
  }

  withRegistryOptions(registry.command('logout'))
    .description('revoke the token on the registry (when it answers) and forget it here')
    .action((options: RegistryCliOptions) =>
      run(options, async () => {
        const { ctx, session } = await registryContext(options, io);
        const result = await (await registryClient()).logout(session);
        const error = result['revoke_error'] as { code: string } | undefined;
        emit(ctx, result, [
          result['revoked'] === true
            ? `Logged out of ${session.endpoint.url}: the token is revoked`
            : `Logged out of ${session.endpoint.url} here${error === undefined ? ' (no token was saved)' : `; the registry did not revoke the token (${error.code})`}`,
          ...(result['note'] === undefined ? [] : [`  note: ${String(result['note'])}`]),
        ]);
        return 0;
      }),
    );

  withRegistryOptions(registry.command('whoami'))
    .description('show the account the saved token (or RYE_REGISTRY_TOKEN) belongs to')
    .action((options: RegistryCliOptions) =>
      run(options, async () => {
        const { ctx, session } = await registryContext(options, io);
        const result = await (await registryClient()).whoami(session);
        const keys = result['keys'] as { fingerprint: string; added_at: string }[];
        emit(ctx, result, [
          `${String(result['username'])} on ${session.endpoint.url} (token from ${String(result['token_source'])})`,
          ...keys.map((k) => `  key ${k.fingerprint} added ${k.added_at}`),
        ]);
        return 0;
      }),
    );

  const keys = new Command('keys').description('author keys registered to your account');
  registry.addCommand(keys);
  withRegistryOptions(keys.command('add'))
    .description('register your public key (<user>/.ai/keys) as an author key')
    .action((options: RegistryCliOptions) =>
      run(options, async () => {
        const { ctx, session } = await registryContext(options, io);
        const result = await (await registryClient()).addAuthorKey(session);
        emit(ctx, result, [
          `${result['status'] === 'added' ? 'Registered' : 'Already registered:'} key ${String(result['fingerprint'])} on ${session.endpoint.url}`,
        ]);
        return 0;
      }),
    );
  withRegistryOptions(keys.command('remove'))
    .description(
      'remove an author key from your account (default: yours): it signs no new push; what it signed stays published',
    )
    .argument('[fingerprint]', 'the key to remove (default: your key in <user>/.ai/keys)')
    .action((fingerprint: string | undefined, options: RegistryCliOptions) =>
      run(options, async () => {
        const { ctx, session } = await registryContext(options, io);
        const result = await (await registryClient()).removeAuthorKey(session, fingerprint);
        emit(ctx, result, [
          `${result['status'] === 'removed' ? 'Removed' : 'Already removed:'} key ${String(result['fingerprint'])} from your account on ${session.endpoint.url}`,
          '  pushes signed by it are refused; versions it signed stay published; `rye registry keys add` registers it again',
        ]);
        return 0;
      }),
    );
  withRegistryOptions(keys.command('list'))
    .description('list the author keys registered to your account')
    .action((options: RegistryCliOptions) =>
      run(options, async () => {
        const { ctx, session } = await registryContext(options, io);
        const who = await (await registryClient()).whoami(session);
        const list = who['keys'] as { fingerprint: string; added_at: string }[];
        emit(
          ctx,
          { ok: true, registry: session.endpoint.url, username: who['username'], keys: list },
          list.length === 0
            ? ['No keys registered; `rye registry keys add` registers yours.']
            : list.map((k) => `${k.fingerprint}  added ${k.added_at}`),
        );
        return 0;
      }),
    );

  withRegistryOptions(registry.command('pin'))
    .description(
      "pin the registry's key again after a rotation, only if it has exactly this fingerprint",
    )
    .requiredOption('--fingerprint <fp>', 'the new key fingerprint, from a channel you trust')
    .action((options: RegistryCliOptions & { fingerprint: string }) =>
      run(options, async () => {
        const { ctx, session } = await registryContext(options, io);
        const result = await (
          await registryClient()
        ).repinRegistryKey(session, options.fingerprint);
        emit(ctx, { ok: true, registry: session.endpoint.url, ...result }, [
          `Pinned key ${result.fingerprint} for ${session.endpoint.url}${result.previous === null ? '' : ` (was ${result.previous})`}`,
        ]);
        return 0;
      }),
    );
}
