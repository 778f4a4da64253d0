import type { Spaces } from '../../items/index.js';
import type { Authority } from '../capabilities/index.js';

/** What every operation call runs with: where, under which environment, and under whose authority. */
export interface OperationContext {
  readonly spaces: Spaces;
  /** The caller's environment (tools inherit from it; never a project `.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Checked before anything is read, verified or run. */
  readonly authority: Authority;
  /** Cancels the call (tools in flight are killed). */
  readonly signal?: AbortSignal;
}
