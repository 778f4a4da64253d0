/**
 * A light door of its own (the layering test lists it): the system tools the
 * composition roots (cli, mcp) run in rye's process, CONTAINMENT.md §1.8. The
 * registry client is loaded only when such a tool runs, so no other command
 * pays for the registry.
 */
import type { InProcessTool } from '../executor/index.js';

export const IN_PROCESS_TOOLS: Readonly<Record<string, InProcessTool>> = {
  'rye/core/registry/registry': async (run) => (await import('./index.js')).registryInProcess(run),
};
