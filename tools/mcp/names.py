"""The API names of MCP tools: ``mcp__<server>__<tool>``, within the API's name rules.

Server and tool names come from outside (a config file, a server's list), so they are
reduced to the characters a tool name may hold; a name that would be too long is cut and
given a short digest so two long names never collide.
"""

from __future__ import annotations

import hashlib
import re

PREFIX = "mcp__"
SEPARATOR = "__"
MAX_NAME = 64  # the API's limit for a tool name
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]+")


def slug(text: str) -> str:
    """`text` with every run of characters a tool name cannot hold replaced by one `_`."""
    return _NOT_ALLOWED.sub("_", text).strip("_") or "x"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:6]


def server_key(server: str) -> str:
    """The server's part of its tools' names and of their permission rules (at most 24 chars)."""
    key = slug(server)
    return key if len(key) <= 24 else f"{key[:17]}_{_digest(server)}"


def api_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>`` in at most 64 characters."""
    head = f"{PREFIX}{server_key(server)}{SEPARATOR}"
    name = slug(tool)
    room = MAX_NAME - len(head)
    if len(name) > room:
        name = f"{name[: room - 7]}_{_digest(tool)}"
    return head + name


def rules_tool(server: str) -> str:
    """The permission rules' tool for a server's tools (``mcp__github``): ``mcp__github.<tool>``."""
    return PREFIX + server_key(server)


def rules_action(server: str, tool: str) -> str:
    """The tool's part of its API name: the action of its permission rules."""
    return api_name(server, tool).removeprefix(f"{PREFIX}{server_key(server)}{SEPARATOR}")
