// `rye bundle verify` on the fast path (../fast-path.ts): the CLI bundle builds
// this module into one file with what it imports, no chunk of the others.
import { bundleVerifyRun } from '../commands/bundle-verify-run.js';
import type { CommonOptions } from '../context.js';
import type { FastRunner } from '../fast-path.js';
// The entry (../entry.ts) runs this module with the process's own streams.
export { processIo } from '../process-io.js';
import { runReported } from './run-reported.js';

export const run: FastRunner = (io, [bundleId], options) =>
  runReported(io, options, () => bundleVerifyRun(io, bundleId ?? '', options as CommonOptions));
