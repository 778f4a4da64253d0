import type { CommonOptions } from '../context.js';

/** `rye execute <type> <item>`'s options as parsed (by commander, or by the argument fast path). */
export type ExecuteOptions = CommonOptions & {
  readonly params?: string;
  readonly paramsFile?: string;
  readonly dryRun?: boolean;
  readonly frozen?: boolean;
  readonly caps?: string;
  readonly inputs?: string;
  readonly plan?: boolean;
  readonly spawn?: boolean;
  readonly detachedWorker?: boolean;
  readonly limit: readonly string[];
  /** commander's `--no-sandbox`: false when given. */
  readonly sandbox?: boolean;
  readonly explainSandbox?: boolean;
};
