import type { Signer, TrustSet } from '../../integrity/index.js';
import type { DirectiveLimits } from '../../items/index.js';
import type { Clock, RandomSource } from '../../ids/index.js';
import type { OperationContext } from '../../ops/index.js';
import type { DirectivePlan } from '../admission/index.js';
import type { RunThreadInput } from '../loop/thread-run.js';
import type { ProviderClient } from '../providers/index.js';

/** What `rye thread resume` (and a rebase it starts) runs with. */
export interface ResumeThreadInput {
  readonly projectRoot: string;
  /** The operator's context; the thread runs under its recorded capabilities only. */
  readonly ops: OperationContext;
  readonly threadId: string;
  /** The new user message the thread continues with. */
  readonly message: string;
  /** The user key (re-seals the repair, signs the record and checkpoints). */
  readonly signer: Signer;
  /** Keys the record and checkpoints must verify against. */
  readonly trust: TrustSet;
  /** The provider client for the re-admitted plan (reads the key: PROVIDER_AUTH_MISSING). */
  readonly client: (plan: DirectivePlan) => Promise<ProviderClient>;
  readonly clock?: Clock;
  /** See RunThreadInput.random: the new token's ids, and a rebase's successor id. */
  readonly random?: RandomSource;
  readonly onProgress?: (line: string) => void;
  /** Cancels the resumed thread (see RunThreadInput.signal). */
  readonly signal?: AbortSignal;
  /** Runs `<directive>` hook actions (see RunThreadInput.hookHost). */
  readonly hookHost?: RunThreadInput['hookHost'];
  /** A changed directive or set: end the thread `continued` and run a successor (rebaseThread). */
  readonly rebase?: boolean;
  /**
   * The operator's `--limit k=v` (parseLimitOverrides): sets those limits for
   * this thread from now on, higher or lower than the directive's, recorded as
   * a signed `limits_set` event (resume-limits.ts). Never a token holder's:
   * the CLI refuses it under RYE_CAP_TOKEN, and MCP offers no resume.
   */
  readonly limits?: DirectiveLimits;
}
