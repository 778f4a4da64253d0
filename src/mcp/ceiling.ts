import { RyeError, isRyeError } from '../errors/index.js';
import type { DirectiveProgram, Spaces } from '../items/index.js';
import type { SandboxGrants } from '../executor/index.js';
import {
  capsOfPermissions,
  narrowAuthority,
  operatorAuthority,
  verifyCeilingToken,
  type Authority,
  type CapSet,
  type TokenHolder,
} from '../capabilities/index.js';
import type { CeilingSource } from './ceiling-source.js';
import { opsDoor } from './ops-door.js';

export interface ResolveAuthorityOptions {
  readonly spaces: Spaces;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Unix seconds (default: now). */
  readonly now?: number;
}

/**
 * The authority one call runs under: the operator's (the user's own, THREADS.md
 * §13) narrowed by every ceiling. Resolved again on each call, from disk: a
 * ceiling directive edited or tampered with, a token expired or revoked,
 * refuses the call instead of acting on a stale verdict. Never falls back to
 * operator authority when a ceiling fails.
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID, MCP_REVOCATIONS_INVALID,
 *   the directive's load and verification codes, CAPABILITY_INVALID
 */
export async function resolveAuthority(
  ceilings: readonly CeilingSource[],
  options: ResolveAuthorityOptions,
): Promise<Authority> {
  return (await resolveCeilings(ceilings, options)).authority;
}

/** An authority and, for each ceiling, where it came from (for the start-up log). */
export interface ResolvedCeilings {
  readonly authority: Authority;
  /** One line per ceiling: the directive's space and path, or the token's jti and expiry. */
  readonly origins: readonly string[];
}

/**
 * {@link resolveAuthority}, also saying which file or token each ceiling
 * resolved to: a directive id resolves project → user → system, so the
 * operator sees which copy capped the server.
 *
 * @throws RyeError as resolveAuthority
 */
export async function resolveCeilings(
  ceilings: readonly CeilingSource[],
  options: ResolveAuthorityOptions,
): Promise<ResolvedCeilings> {
  let authority = operatorAuthority();
  const origins: string[] = [];
  for (const ceiling of ceilings) {
    const { caps, sandbox, origin, holder } =
      ceiling.kind === 'directive'
        ? await directiveCeiling(ceiling.directiveId, options)
        : tokenCeiling(ceiling.token, options);
    authority = narrowAuthority(authority, caps, 'ceiling', sandbox);
    // Trees started under a ceiling token are its holder's (recorded with its jti), as from the CLI.
    if (holder !== undefined && authority.holder === undefined)
      authority = { ...authority, holder };
    origins.push(origin);
  }
  return { authority, origins };
}

interface Ceiling {
  readonly caps: CapSet;
  /** A ceiling directive's `<sandbox>`: the tools run under it are narrowed to it. */
  readonly sandbox?: SandboxGrants;
  readonly origin: string;
  /** A ceiling token's jti and expiry. */
  readonly holder?: TokenHolder;
}

/**
 * A directive's declared set and `<sandbox>`: loaded verified, full
 * coverage, a valid program. A ceiling has no inputs, so a `<sandbox write>`
 * entry holding `{input:name}` grants nothing (the narrower reading: it is
 * dropped, never filled with a wildcard).
 */
async function directiveCeiling(
  directiveId: string,
  options: ResolveAuthorityOptions,
): Promise<Ceiling> {
  const { loadOperation } = await opsDoor();
  const loaded = await loadOperation(
    { spaces: options.spaces, env: options.env, authority: operatorAuthority() },
    { item_type: 'directive', item_id: directiveId },
  );
  const program = loaded.metadata['program'] as DirectiveProgram;
  const caps = capsOfPermissions(program.permissions).set;
  const origin = `directive ${directiveId} (${loaded.space} space, ${loaded.path})`;
  const declared = program.permissions.sandbox;
  if (declared === undefined) return { caps, origin };
  const { write, network, daemon } = declared;
  const sandbox: SandboxGrants = {
    ...(write === undefined ? {} : { write: write.filter((entry) => !entry.includes('{input:')) }),
    ...(network === undefined ? {} : { network }),
    ...(daemon === undefined ? {} : { daemon }),
  };
  return { caps, sandbox, origin };
}

/**
 * A root-only ceiling token (`rye cap mint`), verified by `verifyCeilingToken`:
 * the local user's own key, this project's audience, the revocation list
 * (THREADS.md §4 check 6). A thread's token is refused.
 */
function tokenCeiling(token: string, options: ResolveAuthorityOptions): Ceiling {
  try {
    const verified = verifyCeilingToken(token, options.spaces, options.now);
    const expires = new Date(verified.exp * 1000).toISOString();
    return {
      caps: verified.caps,
      origin: `jti ${verified.jti}, expires ${expires}`,
      holder: { kind: 'ceiling', jti: verified.jti, exp: verified.exp },
    };
  } catch (error) {
    throw clearer(error);
  }
}

/** Say why in this server's terms; the reason (stable) is kept. */
function clearer(error: unknown): unknown {
  if (!isRyeError(error) || error.code !== 'CAPABILITY_TOKEN_INVALID') return error;
  const reason = error.details['reason'];
  const why =
    reason === 'jti_finished'
      ? 'its jti is on the revocation list'
      : reason === 'jti_mismatch'
        ? 'it is a thread’s token, and no running thread is recorded here (only root-only ceiling tokens are accepted)'
        : undefined;
  if (why === undefined) return error;
  return new RyeError(
    'CAPABILITY_TOKEN_INVALID',
    `Cannot accept the capability token: ${why}`,
    error.details,
    { cause: error },
  );
}
