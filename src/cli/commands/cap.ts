import { Command } from 'commander';
import { resolve } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { readSigner } from '../../integrity/index.js';
import { keyDir } from '../../items/index.js';
import { readTextFileSync, writeFileAtomic } from '../../platform/index.js';
import {
  capStrings,
  capSetCovers,
  formatCapability,
  mintCeilingToken,
  parseCapsOption,
  parseTtl,
  revokeCeilingJti,
} from '../../capabilities/index.js';
import { commandAuthority } from '../authority.js';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit, emitSecret } from '../report.js';
import type { Runner } from '../runner.js';

type MintOptions = CommonOptions & { caps: string; ttl: string; out?: string };

/**
 * `rye cap mint|revoke` (THREADS.md §4, §13, §14): root-only ceiling tokens
 * signed by the user key, for `rye mcp serve --ceiling <file>` and
 * `RYE_CAP_TOKEN`, and their revocation.
 */
export function capCommand(io: CliIo, run: Runner): Command {
  const cap = new Command('cap').description(
    'mint and revoke capability tokens (rye-cap-v1) that cap an MCP server or a process',
  );

  withCommonOptions(cap.command('mint'))
    .description('mint a root-only ceiling token signed by your key; prints it, or writes --out')
    .requiredOption(
      '--caps <caps>',
      'the capabilities: a list (rye.execute.tool.apps/*,rye.load.knowledge.*) or @file',
    )
    .requiredOption('--ttl <duration>', 'how long it is valid: 90s, 30m, 12h, 7d (at most 365d)')
    .option('--out <file>', 'write the token to this file (mode 0600) instead of printing it')
    .action((options: MintOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        // Every check before the key is read or anything is written.
        const ttlSeconds = parseTtl(options.ttl);
        const parsed = parseCapsOption(options.caps, (path) =>
          readTextFileSync(resolve(io.cwd, path), 64 * 1024),
        );
        const held = await commandAuthority(ctx, undefined);
        const beyond = parsed.declared.filter((c) => !capSetCovers(held.caps, c));
        if (beyond.length > 0)
          throw new RyeError(
            'CAPABILITY_DENIED',
            `Cannot mint a token wider than this process's authority (${held.describe()}): ${beyond.map(formatCapability).join(', ')}`,
            {
              required: formatCapability(beyond[0] as (typeof beyond)[number]),
              source: held.source,
            },
          );
        // Minted under a ceiling (the runner refused a thread's token): never outliving it.
        const until = held.holder?.exp;
        if (until !== undefined && Math.floor(Date.now() / 1000) + ttlSeconds > until)
          throw new RyeError(
            'CAPABILITY_DENIED',
            `Cannot mint a token valid for ${options.ttl}: the RYE_CAP_TOKEN it comes from expires at ${new Date(until * 1000).toISOString()}, and a token minted under it never outlives it`,
            { source: held.source, expires_at: new Date(until * 1000).toISOString() },
          );
        const signer = await readSigner(keyDir(ctx.spaces));
        const minted = mintCeilingToken({
          spaces: ctx.spaces,
          signer,
          caps: parsed.set,
          ttlSeconds,
        });
        const out = options.out === undefined ? undefined : resolve(io.cwd, options.out);
        if (out !== undefined)
          await writeFileAtomic(out, `${minted.token}\n`, { mode: 0o600, dirMode: 0o700 });
        const about = {
          jti: minted.jti,
          expires_at: new Date(minted.exp * 1000).toISOString(),
          caps: capStrings(parsed.set),
        };
        // The token is what was asked for: printed as it is (never redacted) unless --out.
        (out === undefined ? emitSecret : emit)(
          ctx,
          { ok: true, ...about, ...(out === undefined ? { token: minted.token } : { path: out }) },
          out === undefined
            ? [minted.token]
            : [
                `wrote ${out} (jti ${about.jti}, expires ${about.expires_at})`,
                `use: rye mcp serve --ceiling ${out}   or   RYE_CAP_TOKEN=$(cat ${out})`,
                `revoke: rye cap revoke ${about.jti}`,
              ],
        );
        if (out === undefined && !ctx.json)
          io.stderr(`jti ${about.jti}, expires ${about.expires_at}\n`);
        return 0;
      }),
    );

  withCommonOptions(cap.command('revoke'))
    .description(
      'revoke a ceiling token by its jti: every server and process refuses it from now on',
    )
    .argument('<jti>', 'the 32-hex-digit jti that `rye cap mint` printed')
    .action((jti: string, options: CommonOptions) =>
      run(options, async () => {
        const ctx = contextOf(options, io);
        // A mistyped argument is a usage error, not a broken revocation list.
        if (!/^[0-9a-f]{32}$/.test(jti.trim()))
          throw new RyeError(
            'USAGE_INVALID_ARGUMENT',
            `Cannot revoke "${jti.slice(0, 100)}": a jti is the 32 lowercase hex digits \`rye cap mint\` printed`,
            {},
          );
        await revokeCeilingJti(ctx.spaces, jti.trim());
        emit(ctx, { ok: true, jti: jti.trim(), revoked: true }, [`revoked ${jti.trim()}`]);
        return 0;
      }),
    );
  return cap;
}
