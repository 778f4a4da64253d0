import type { CodeTable } from './code-table.js';

/** MCP server: its tools, ceilings and HTTP transport (docs/mcp.md). */
export const MCP_CODES = {
  MCP_TOOL_UNKNOWN: {
    class: 'usage',
    hint: 'The rye MCP server offers four tools: execute, search, load and sign (tools/list shows their schemas).',
  },
  MCP_CEILING_INVALID: {
    class: 'usage',
    hint: '--ceiling takes a directive id or a file holding one rye-cap-v1 token (at most 64 KiB); RYE_CAP_TOKEN must hold a token. See docs/mcp.md.',
  },
  MCP_REVOCATIONS_INVALID: {
    class: 'integrity',
    hint: 'The ceiling revocation list (<user>/.ai/capabilities/revoked) is unreadable, too large or has a line that is not a 32-hex-digit jti; every call is refused until it is fixed.',
  },
  MCP_SERVER_STOPPING: {
    class: 'failure',
    hint: 'The MCP server is shutting down (stdin closed, a signal, or its parent exited) and admits no new calls.',
  },
  MCP_HTTP_BIND_REFUSED: {
    class: 'usage',
    hint: 'The HTTP transport listens on loopback only (127.0.0.1, ::1, localhost); pass --allow-remote to bind another address, and keep the bearer token secret.',
  },
  MCP_HTTP_UNAUTHORIZED: {
    class: 'integrity',
    hint: 'Send `Authorization: Bearer <token>` with the token rye mcp serve printed on stderr (or the one set in RYE_MCP_HTTP_TOKEN).',
  },
  MCP_HTTP_HOST_REFUSED: {
    class: 'integrity',
    hint: 'The Host or Origin header names no address this server listens on (a DNS rebinding attempt looks like this); connect to the printed URL.',
  },
  MCP_HTTP_SESSION_UNKNOWN: {
    class: 'failure',
    hint: 'The Mcp-Session-Id is not a live session of this server (it ended or the server restarted); initialize a new session.',
  },
} as const satisfies CodeTable;
