#!/bin/sh
# __version__ = "1.0.0"
# __tool_type__ = "shell"
# __executor_id__ = "rye/core/runtimes/shell_runtime"
# __category__ = "examples/channel"
# __tool_description__ = "Load a knowledge item through the operation channel (fd 3) and return rye's answer"
# CONFIG_SCHEMA = {"type": "object", "properties": {"item_id": {"type": "string"}}, "required": ["item_id"]}
# __permissions__ = {"rye": ["rye.load.knowledge.*"]}
#
# $1 is the params JSON, $2 the project path. The tool holds no token: rye
# opened fd 3 because the signed permissions above declare a `rye:` pattern,
# and answers each request line under that pattern and the caller's authority.

fail() {
  printf '{"success": false, "error": "%s"}\n' "$1"
  exit 1
}

[ "${RYE_CHANNEL_FD:-}" = 3 ] || fail "no operation channel: RYE_CHANNEL_FD is not set"

# The id goes into the request line as written: allow only id characters, so
# the params cannot add JSON of their own.
item_id=$(printf '%s' "$1" | sed -n 's/.*"item_id"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
case "$item_id" in
  '' | *[!A-Za-z0-9_/-]*) fail "item_id must be an item id (letters, digits, _, -, /)" ;;
esac

# One request line out, one answer line back (the same id).
printf '{"id": 1, "op": "load", "input": {"item_type": "knowledge", "item_id": "%s"}}\n' "$item_id" >&3
IFS= read -r answer <&3 || fail "the channel closed before answering"

# rye's answer is one JSON object: {"id", "status", "item_id", "data"} or {"id", "status": "error", "error"}.
printf '{"success": true, "answer": %s}\n' "$answer"
