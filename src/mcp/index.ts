/**
 * The MCP entry (`rye-ts/mcp`, docs/library.md, docs/mcp.md): the four
 * operations as MCP tools, served over stdio or HTTP, under ceilings (a
 * capability token or `--caps`); ceiling tokens minted, verified and revoked.
 * It loads the MCP SDK; the operations behind the tools load on first use.
 * The server's own parts (the HTTP guard, progress coalescing, the stdout
 * guard, the parent watchdog) are internal: the server wires them itself.
 */
export { resolveAuthority, resolveCeilings } from './ceiling.js';
export type { ResolveAuthorityOptions, ResolvedCeilings } from './ceiling.js';
export { CAP_TOKEN_ENV, readCeilingSources } from './ceiling-source.js';
export type { CeilingSource } from './ceiling-source.js';
// http.ts is loaded by startMcpServer only for --http (Hono stays out of stdio start-up).
export type { HttpServeOptions, RunningHttpServer } from './http.js';
export { toCallResult } from './results.js';
export type { McpCallResult } from './results.js';
// Ceiling tokens and their revocation list live in capabilities (`rye cap mint`, `rye cap revoke`); here for the public API.
export {
  MAX_REVOCATION_BYTES,
  mintCeilingToken,
  parseRevocationList,
  parseTtl,
  readRevocationList,
  revocationListPath,
  revokeCeilingJti,
  verifyCeilingToken,
} from '../capabilities/index.js';
export type { MintedCeiling } from '../capabilities/index.js';
export { HTTP_TOKEN_ENV, startMcpServer } from './serve.js';
export type { McpServeOptions } from './serve.js';
export { createRyeMcpServer } from './server.js';
export type { RyeMcpServer, RyeMcpServerOptions } from './server.js';
export { serveStdio } from './stdio.js';
export type { StdioServeOptions } from './stdio.js';
export { MCP_TOOL_NAMES, isMcpToolName, mcpToolDefinitions } from './tools.js';
export type { McpToolDefinition } from './tools.js';
