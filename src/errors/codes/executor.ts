import type { CodeTable } from './code-table.js';

/** Executor, sandbox included: chains, tool runs, primitives and the operation channel. */
export const EXECUTOR_CODES = {
  EXECUTOR_CHAIN_CYCLE: {
    class: 'failure',
    hint: 'Two chain elements name each other as executor_id; fix the executor_id values.',
  },
  EXECUTOR_CHAIN_TOO_LONG: {
    class: 'failure',
    hint: 'A chain may have at most 10 links (tool → runtimes → primitive).',
  },
  EXECUTOR_MISSING_LINK: {
    class: 'failure',
    hint: 'An executor_id names an item that does not resolve in any space.',
  },
  EXECUTOR_ROOT_NOT_PRIMITIVE: {
    class: 'failure',
    hint: 'The last element of a chain (executor_id null) must be a primitive.',
  },
  EXECUTOR_PRIMITIVE_UNKNOWN: {
    class: 'failure',
    hint: 'Only the built-in primitives rye/core/primitives/subprocess and http_client can run.',
  },
  EXECUTOR_NOT_A_TOOL: {
    class: 'failure',
    hint: 'Only tool entry points (with tool_type and executor_id) can be executed.',
  },
  EXECUTOR_CONFIG_INVALID: {
    class: 'failure',
    hint: 'A runtime or tool configuration (config, env_config, anchor, verify_deps) is malformed.',
  },
  EXECUTOR_SNAPSHOT_FAILED: {
    class: 'failure',
    hint: 'The verified snapshot a tool runs from could not be written or read under RYE_CACHE_DIR (default <user>/.ai/cache); check that folder.',
  },
  EXECUTOR_SOURCE_CHANGED: {
    class: 'integrity',
    hint: 'A file changed while it was being verified; run again, and find out what is writing to it.',
  },
  EXECUTOR_THIRD_PARTY_UNPINNED: {
    class: 'integrity',
    hint: 'Third-party code (node_modules) runs only once you pinned it: review it, then run `rye lock update <tool>`.',
  },
  EXECUTOR_DEPENDENCY_SIGNER_MIXED: {
    class: 'integrity',
    hint: "A file in the tool's folder is signed by another key than the tool's or yours (a file planted by someone else's bundle, say); remove it, or review it and re-sign it with `rye sign`.",
  },
  PARAMS_INVALID: {
    class: 'usage',
    hint: "The parameters do not match the tool's config_schema; every problem is listed.",
  },
  SANDBOX_UNAVAILABLE: {
    class: 'failure',
    hint: 'The sandbox could not start (details.errno and details.cause say why); nothing ran. Install bubblewrap (apt-get install bubblewrap) and allow unprivileged user namespaces, or, as the operator only, pass --no-sandbox or set `sandbox: off` in ~/.ai/config.yaml. See docs/sandbox.md.',
  },
  SANDBOX_PATH_REFUSED: {
    class: 'integrity',
    hint: "A path of the tool's permissions goes through a symlink, out of the project, or into what no sandbox sees; nothing ran. Fix the project tree or the tool's permissions (docs/sandbox.md).",
  },
  SANDBOX_CONFIG_INVALID: {
    class: 'usage',
    hint: 'The user config (~/.ai/config.yaml) says `sandbox: on` or `sandbox: off`; any other value is refused, never read as off.',
  },
  SANDBOX_NOT_FOUND: {
    class: 'usage',
    hint: 'No running sandbox has that id; `rye sandbox list` shows the daemons rye started.',
  },
  CHANNEL_REQUEST_INVALID: {
    class: 'usage',
    hint: 'A request on the operation channel (fd 3) is one JSON line {"id", "op", "input"} of at most 1 MiB, op one of execute, search, load, sign (docs/sandbox.md).',
  },
  CHANNEL_DENIED: {
    class: 'failure',
    hint: "The tool call this channel belongs to has ended, or tools ran tools through the channel deeper than allowed (3); nothing ran. A request outside the tool's `rye` permission or the caller's capabilities is CAPABILITY_DENIED.",
  },
  EXECUTE_COMMAND_NOT_FOUND: {
    class: 'failure',
    hint: 'The interpreter or command was not found; install it or set the runtime variable (e.g. RYE_PYTHON).',
  },
  EXECUTE_ARGUMENTS_TOO_LARGE: {
    class: 'failure',
    hint: 'The command line is over what the system accepts (on Linux 128 KiB per argument, the parameters included); pass large content another way, e.g. in a file the tool reads.',
  },
  EXECUTE_TIMEOUT: {
    class: 'failure',
    hint: 'The tool ran past its timeout and its whole process tree was killed.',
  },
  EXECUTE_CANCELLED: {
    class: 'failure',
    hint: 'The call was cancelled (a thread cancel, fail_fast or an MCP client): the tool was not started, or its process tree was killed.',
  },
  EXECUTE_TOOL_FAILED: {
    class: 'failure',
    hint: 'The tool ran and reported failure; see data for its output.',
  },
  HTTP_REQUEST_FAILED: {
    class: 'failure',
    hint: 'The HTTP request failed after its retries; check the URL and the service.',
  },
  EXECUTOR_SPACE_VIOLATION: {
    class: 'integrity',
    hint: 'A chain element depends on a higher-precedence space (e.g. a system runtime on a project file): a shadowing attempt.',
  },
  EXECUTOR_DOTENV_REFUSED: {
    class: 'integrity',
    hint: 'A signed .env may not set names that steer an interpreter or loader (PATH, NODE_*, PYTHON*, LD_*, RYE_*, …); set them in your own environment, remove them and `rye dotenv sign`.',
  },
  EXECUTOR_IDENTITY_MISMATCH: {
    class: 'integrity',
    hint: 'A chain element is signed as another item (its category or name is not where it was found): a signed file copied over another id.',
  },
} as const satisfies CodeTable;
