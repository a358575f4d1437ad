"""MCP connectors in a workspace, for tests: `configure` writes an approved mcp.json, `running`
does some work with the tool sources started and closes them as quitting does, and `turn` is a
message sent in a new chat, as that work."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from desktop.calls.sources.mcp.source import McpSource
from desktop.chat.events import AgentEvent
from desktop.workspace import Workspace
from tests.support import mcp_servers
from tests.support.turns import send

T = TypeVar("T")


def configure(ws: Workspace, servers: dict[str, dict[str, Any]], **top: Any) -> McpSource:
    assert ws.toolbox.mcp is not None
    mcp_servers.write_approved(ws.toolbox.mcp, {"mcpServers": servers, **top})
    return ws.toolbox.mcp


def running(ws: Workspace, work: Callable[[], Awaitable[T]]) -> T:
    """Start the tool sources as the app does, do `work`, then close them as quitting does."""

    async def go() -> T:
        await ws.toolbox.start()
        try:
            return await work()
        finally:
            await ws.toolbox.close()
            await ws.agent.close()

    return asyncio.run(go())


def turn(ws: Workspace, text: str) -> Callable[[], Awaitable[list[AgentEvent]]]:
    async def go() -> list[AgentEvent]:
        events: list[AgentEvent] = []
        await send(ws.conversations, ws.store.create_session().id, text, events.append)
        return events

    return go
