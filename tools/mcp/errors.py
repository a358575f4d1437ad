"""The errors of the MCP client package; each becomes a fixed phrase before the model reads it."""

from __future__ import annotations

from tools.base import ToolFailure


class McpProblem(ToolFailure):
    """Base of this package's errors."""


class ServerUnavailable(McpProblem):
    """The server is not running (it failed to start, was turned off, or stopped)."""


class ServerGone(McpProblem):
    """The server's connection closed while a call was waiting for its answer."""


class CallRefused(McpProblem):
    """The server answered the call with a protocol error (unknown tool, bad arguments...)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code
