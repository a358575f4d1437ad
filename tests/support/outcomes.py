"""A whole turn in a new chat, kept by its chat id, for tests of what calls really did: the
live events and the chat's id to reopen it (`Workspace.transcript`) and to compare."""

from __future__ import annotations

import asyncio

from desktop.chat.events import AgentEvent, ToolFinished
from desktop.workspace import Workspace
from tests.support.turns import send


def run_turn(ws: Workspace, text: str) -> tuple[int, list[AgentEvent]]:
    """Send `text` in a new chat and run its whole turn; the chat's id and its live events."""
    events: list[AgentEvent] = []
    sid = ws.store.create_session().id

    async def go() -> None:
        await send(ws.conversations, sid, text, events.append)
        await ws.agent.close()

    asyncio.run(go())
    return sid, events


def finished(events: list[AgentEvent]) -> list[ToolFinished]:
    return [event for event in events if isinstance(event, ToolFinished)]
