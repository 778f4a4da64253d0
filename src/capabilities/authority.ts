import { RyeError } from '../errors/index.js';
import { ITEM_TYPES, parseItemId, type ItemType } from '../items/index.js';
import { allowed, capStrings, compileCaps, type CapSet } from './cap-set.js';
import { CAP_VERBS, formatCapability, type CapVerb, type Capability } from './capability.js';
import { intersectCaps } from './intersect.js';
import { ANY_ID } from './pattern.js';
import { meetGrants, type SandboxGrants } from '../executor/index.js';

/** Where an authority came from (shown in denials and logs). */
export type AuthoritySource = 'operator' | 'caps' | 'token' | 'thread' | 'ceiling';

/** The authority every operation call carries: what it may do, and why. */
export interface Authority {
  readonly caps: CapSet;
  readonly source: AuthoritySource;
  /**
   * What the sandboxes of the tools run under this authority are narrowed to
   * (a thread's directive `<sandbox>`, met with its parent's); absent: no
   * narrowing. It only ever narrows (docs/sandbox.md).
   */
  readonly sandbox?: SandboxGrants;
  /**
   * Set when the authority comes from a `RYE_CAP_TOKEN`: who holds it and
   * until when. The CLI holds every command to it (src/cli/token-gate.ts).
   */
  readonly holder?: TokenHolder;
  /** One line naming the source and summarising the set (no secrets). */
  describe(): string;
}

/**
 * The holder of a presented token: a minted ceiling (its jti; the trees it
 * starts are its own) or a running thread (its descendants are its own).
 * `exp` in seconds since the epoch.
 */
export type TokenHolder =
  | { readonly kind: 'ceiling'; readonly jti: string; readonly exp: number }
  | { readonly kind: 'thread'; readonly thread: string; readonly exp: number };

/** Grants shown in full in a denial message before it summarises. */
const SHOWN_IN_MESSAGE = 8;

const EVERYTHING: readonly Capability[] = CAP_VERBS.flatMap((verb) =>
  ITEM_TYPES.map((type) => ({ verb, type, pattern: ANY_ID })),
);

/** The local operator's authority: every verb on every item (the user's own CLI). */
export function operatorAuthority(): Authority {
  return authorityOf(compileCaps(EVERYTHING), 'operator');
}

/** An authority holding exactly `caps` (already attenuated by the caller), its tools' sandboxes narrowed to `sandbox`. */
export function authorityOf(
  caps: CapSet,
  source: AuthoritySource,
  sandbox?: SandboxGrants,
): Authority {
  return {
    caps,
    source,
    ...(sandbox === undefined ? {} : { sandbox }),
    describe: () => `${source} authority holding ${summarise(caps)}`,
  };
}

/**
 * `base` narrowed to `caps`: the exact intersection, so it is never wider
 * than either; its tools' sandboxes narrowed further by `sandbox` when given
 * (met with the base's, never widened). `source` says what narrowed it
 * (default `caps`).
 */
export function narrowAuthority(
  base: Authority,
  caps: CapSet | readonly Capability[],
  source: AuthoritySource = 'caps',
  sandbox?: SandboxGrants,
): Authority {
  const narrowed = authorityOf(
    intersectCaps(base.caps, caps).set,
    source,
    meetGrants(base.sandbox, sandbox),
  );
  return base.holder === undefined ? narrowed : { ...narrowed, holder: base.holder };
}

/**
 * Refuse a call its authority does not allow. The id is checked first
 * (ITEM_ID_INVALID), so a bad id is never reported as a mere denial.
 *
 * @throws RyeError ITEM_ID_INVALID; CAPABILITY_DENIED naming the capability that
 *   would allow the call (`details.required`) and what was held (`details.held`).
 */
export function requireAllowed(
  authority: Authority,
  verb: CapVerb,
  type: ItemType,
  id: string,
): void {
  parseItemId(id);
  if (allowed(authority.caps, verb, type, id)) return;
  const required = formatCapability({ verb, type, pattern: id });
  throw new RyeError(
    'CAPABILITY_DENIED',
    `Cannot ${verb} ${type} "${id}": it needs ${required}, and the call runs under ${authority.describe()}`,
    { required, held: capStrings(authority.caps), source: authority.source },
  );
}

/** `nothing`, `everything`, or the first grants and how many more. */
function summarise(set: CapSet): string {
  const held = capStrings(set);
  if (held.length === 0) return 'nothing (an empty set allows no call)';
  if (CAP_VERBS.every((verb) => ITEM_TYPES.every((type) => set.sets[verb][type].all)))
    return 'everything';
  const first = held.slice(0, SHOWN_IN_MESSAGE).join(', ');
  const more = held.length - SHOWN_IN_MESSAGE;
  return `${first}${more > 0 ? ` and ${more} more` : ''}`;
}
