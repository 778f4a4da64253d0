"""Reach rye from a Python tool through the operation channel (fd 3).

A tool whose signed permissions declare ``rye:`` patterns gets an inherited
socket, named by ``RYE_CHANNEL_FD``; no token ever enters the sandbox. Each
call writes one JSON line ``{"id", "op", "input"}`` and returns the answer
line of the same id as a dict, without the id: ``{"status": "success",
"item_id", "data"}`` or ``{"status": "error", "error": {"code", "message",
"hint"}}``. A refusal is such a result, not an exception::

    import rye_channel

    doc = rye_channel.load({"item_type": "knowledge", "item_id": "apps/notes"})
    if doc["status"] == "success":
        print(doc["data"]["content"])

The Python runtimes put this folder on PYTHONPATH for a multi-file tool (a
folder with ``__init__.py`` or ``pyproject.toml``), so such a tool imports it
as above. A lone-file tool can speak the same protocol itself: write the line
to ``os.fdopen(int(os.environ["RYE_CHANNEL_FD"]), "r+b", buffering=0)`` and
read one line back.

Inputs are those of the model's tools of the same names: ``execute`` runs a
tool (never a directive), ``search``, ``load`` and ``sign`` as the model's.
Python 3.9+, standard library only; calls are serialised (thread-safe).
"""

import json
import os
import threading

__all__ = ["execute", "search", "load", "sign", "ChannelError"]

CHANNEL_ENV = "RYE_CHANNEL_FD"


class ChannelError(RuntimeError):
    """The channel is missing, failed or closed; ``code`` is rye's code when it gave one."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


_lock = threading.Lock()
_channel = None
_next_id = 0


def _open():
    global _channel
    if _channel is not None:
        return _channel
    text = os.environ.get(CHANNEL_ENV, "")
    if not text.isdigit():
        raise ChannelError(
            "Cannot reach rye: RYE_CHANNEL_FD is not set "
            "(this tool declares no rye: permissions, or runs outside rye)"
        )
    fd = int(text)
    # A buffered reader (an answer may come in several reads) and an unbuffered
    # writer (a request is one write) over the same socket.
    _channel = (os.fdopen(fd, "rb", closefd=False), os.fdopen(fd, "wb", buffering=0))
    return _channel


def _call(op, payload):
    global _next_id
    with _lock:
        reader, writer = _open()
        _next_id += 1
        request_id = _next_id
        line = json.dumps(
            {"id": request_id, "op": op, "input": {} if payload is None else payload},
            separators=(",", ":"),
        )
        writer.write(line.encode("utf-8") + b"\n")
        while True:
            raw = reader.readline()
            if not raw.endswith(b"\n"):
                raise ChannelError("Cannot use the rye channel: it closed before answering")
            answer = json.loads(raw.decode("utf-8"))
            answer_id = answer.pop("id", None)
            if answer_id == request_id:
                return answer
            if answer_id is None:
                # Only a limit (a request over 1 MiB, too many requests) answers
                # without an id; the channel closes after it.
                error = answer.get("error") or {}
                raise ChannelError(
                    "rye refused the channel: " + str(error.get("message", "closed")),
                    error.get("code"),
                )


def execute(payload):
    """Run a tool: ``{"item_type": "tool", "item_id", "parameters"?, "dry_run"?}``."""
    return _call("execute", payload)


def search(payload):
    """Search: ``{"query", "item_type"?, "space"?, "limit"?}``."""
    return _call("search", payload)


def load(payload):
    """Load an item: ``{"item_type", "item_id", "source"?}``."""
    return _call("load", payload)


def sign(payload):
    """Sign items (needs rye.sign.* in the tool's and the caller's sets): ``{"item_type", "item_id", "source"?}``."""
    return _call("sign", payload)
