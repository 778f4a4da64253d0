/** The `rye` CLI: `main(argv, io)` returns the exit code (see README.md in this folder). */
export { main, processIo } from './main.js';
export type { CliIo } from './context.js';
