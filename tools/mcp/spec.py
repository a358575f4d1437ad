"""What an MCP server is (a command to start, or a URL) and where it stands, as plain data.

Kept apart from the connection code so that reading the config and showing a status never
loads the `mcp` SDK: that happens when the first server starts, behind the window.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from tools.data import Data


class StdioSpec(Data):
    """A server Deskhand starts as a child process and talks to over stdin/stdout."""

    command: str
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None


class HttpSpec(Data):
    """A server already running somewhere, reached over streamable HTTP."""

    url: str
    headers: dict[str, str] = Field(default_factory=dict)
    oauth: bool = False  # signs in: its transport carries the sign-in's tokens


ServerSpec = StdioSpec | HttpSpec


class ServerState(StrEnum):
    OFF = "off"  # turned off, or not started yet
    IDLE = "idle"  # starts on its first call
    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"


class ServerStatus(Data):
    """What the Connectors page shows for a server."""

    state: ServerState = ServerState.OFF
    tools: int = 0
    problem: str = ""  # what went wrong, for the person
    stderr: str = ""  # the tail of a stdio server's stderr
