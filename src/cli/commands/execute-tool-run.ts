// What `rye execute tool` runs, imported by name from the doors in one module
// that the command loads on use: the bundler then takes only these functions'
// modules, where a dynamic import of a door would take everything behind it
// (for ops: the operation schemas, search, sign and directive
// planning, with zod and SQLite).
export { killRunningTools } from '../../executor/index.js';
export { executeThreadTool, executeTool, runOperationLazily } from '../../ops/index.js';
