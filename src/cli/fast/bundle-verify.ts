// `rye bundle verify` on the fast path (../fast-path.ts): the CLI bundle builds
// this module into one file with what it imports, no chunk of the others.
import { bundleVerifyRun } from '../commands/bundle-verify-run.js';
import type { CommonOptions } from '../context.js';
import type { FastRunner } from '../fast-path.js';
import { runReported } from './run-reported.js';

export const runBundleVerify: FastRunner = (io, [bundleId], options) =>
  runReported(io, options, () => bundleVerifyRun(io, bundleId ?? '', options as CommonOptions));
