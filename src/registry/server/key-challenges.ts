import { RyeError } from '../../errors/index.js';
import { newKeyChallenge } from '../key-proof.js';

/** A challenge lives this long. */
export const KEY_CHALLENGE_TTL_MS = 5 * 60_000;
/** Open challenges per account: enough for a few tries at once, too few to fill memory. */
const PER_ACCOUNT = 8;
/** Challenges held at most, all accounts together. */
const MAX_CHALLENGES = 10_000;

interface Challenge {
  readonly accountId: number;
  readonly expiresAt: number;
  used: boolean;
}

/**
 * The key-registration challenges of one registry process, in memory: they
 * live minutes and are single use, so a restart only makes a client ask
 * again (REGISTRY_KEY_PROOF_INVALID tells it so). Used challenges are
 * remembered until they expire, so a replay is told apart from a forgery.
 * A multi-process deployment would need them in the store (issue 11 notes).
 */
export class KeyChallenges {
  readonly #byChallenge = new Map<string, Challenge>();

  constructor(private readonly now: () => Date) {}

  /**
   * Issue a challenge bound to an account.
   * @throws RyeError REGISTRY_RATE_LIMITED (too many open for this account or in all)
   */
  issue(accountId: number): { challenge: string; expiresAt: Date } {
    const now = this.now().getTime();
    this.#sweep(now);
    let open = 0;
    for (const c of this.#byChallenge.values())
      if (c.accountId === accountId && !c.used && now < c.expiresAt) open += 1;
    if (open >= PER_ACCOUNT || this.#byChallenge.size >= MAX_CHALLENGES) {
      throw new RyeError(
        'REGISTRY_RATE_LIMITED',
        `Cannot issue a key challenge: too many are open; use one or wait ${KEY_CHALLENGE_TTL_MS / 60_000} minutes`,
        { retryAfterSeconds: KEY_CHALLENGE_TTL_MS / 1000 },
      );
    }
    const challenge = newKeyChallenge();
    const expiresAt = now + KEY_CHALLENGE_TTL_MS;
    this.#byChallenge.set(challenge, { accountId, expiresAt, used: false });
    return { challenge, expiresAt: new Date(expiresAt) };
  }

  /**
   * Spend a challenge for an account: it is used up whatever the proof turns
   * out to be.
   *
   * @throws RyeError REGISTRY_KEY_PROOF_EXPIRED, REGISTRY_KEY_PROOF_REUSED,
   *   REGISTRY_KEY_PROOF_INVALID (never issued here, or issued to another account)
   */
  take(accountId: number, challenge: string): void {
    const now = this.now().getTime();
    const found = this.#byChallenge.get(challenge);
    if (found === undefined || found.accountId !== accountId) {
      throw new RyeError(
        'REGISTRY_KEY_PROOF_INVALID',
        'Cannot register the key: this registry did not issue that challenge to your account (or it restarted since); ask for a new one',
        {},
      );
    }
    if (found.used) {
      throw new RyeError(
        'REGISTRY_KEY_PROOF_REUSED',
        'Cannot register the key: that challenge was used already; ask for a new one',
        {},
      );
    }
    found.used = true;
    if (now >= found.expiresAt) {
      throw new RyeError(
        'REGISTRY_KEY_PROOF_EXPIRED',
        `Cannot register the key: the challenge expired (they last ${KEY_CHALLENGE_TTL_MS / 60_000} minutes); ask for a new one`,
        {},
      );
    }
  }

  /** Expired challenges are kept one more lifetime, so a late answer hears "expired", not "unknown". */
  #sweep(now: number): void {
    for (const [challenge, c] of this.#byChallenge)
      if (now >= c.expiresAt + KEY_CHALLENGE_TTL_MS) this.#byChallenge.delete(challenge);
  }
}
