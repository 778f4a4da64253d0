// `rye verify-file` on the fast path (../fast-path.ts): the CLI bundle builds
// this module into one file with what it imports, no chunk of the others.
import { verifyFileRun, type VerifyFileOptions } from '../commands/verify-file-run.js';
import type { FastRunner } from '../fast-path.js';
// The entry (../entry.ts) runs this module with the process's own streams.
export { processIo } from '../process-io.js';
import { runReported } from './run-reported.js';

export const run: FastRunner = (io, [path], options) =>
  runReported(io, options, () =>
    verifyFileRun(io, path ?? '', options as unknown as VerifyFileOptions),
  );
