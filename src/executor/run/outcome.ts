import type { ErrorCode } from '../../errors/index.js';

/** Why a run failed, as the result document reports it (`error`). */
export interface ToolFailure {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: unknown;
}

/** What a run came to. */
export interface Outcome {
  readonly status: 'success' | 'error';
  readonly data: unknown;
  readonly error?: ToolFailure;
  /** The daemon sandbox the call left running (recorded under this id). */
  readonly daemon?: string;
}
