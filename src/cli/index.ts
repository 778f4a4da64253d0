/** The `rye` CLI: `main(argv, io)` returns the exit code (see README.md in this folder). */
export { main } from './main.js';
export { processIo } from './process-io.js';
export type { CliIo } from './context.js';
