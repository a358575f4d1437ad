"""A reopened chat's tool calls say where they come from, as they did live, old chats included."""

from __future__ import annotations

import asyncio

from desktop.calls.contract import CARD_KEY
from desktop.chat.events import AgentEvent, ToolStarted
from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sample_tools import NotebookTool
from tests.support.turns import send


def started(events: list[AgentEvent]) -> list[ToolStarted]:
    return [event for event in events if isinstance(event, ToolStarted)]


def test_a_reopened_call_comes_from_where_it_came_from_live(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    workspace.registry.add(NotebookTool())
    workspace.live.set_mode(Mode.AUTONOMOUS)
    model_server.enqueue(
        tool_reply(
            ToolUse(name="notebook", input={"text": "milk"}),
            ToolUse(name="teleport", input={"to": "Mars"}),
        ),
        text_reply("Milk is noted."),
    )
    sid = workspace.store.create_session().id
    events: list[AgentEvent] = []

    async def go() -> None:
        await send(workspace.conversations, sid, "Note milk", events.append)
        await workspace.agent.close()

    asyncio.run(go())
    live = started(events)
    assert [(e.source, e.source_title) for e in live] == [
        ("notebook", "Notebook"),
        ("", "teleport"),
    ]
    assert started(workspace.transcript(sid)[0]) == live


def test_a_card_kept_before_it_said_where_its_call_comes_from_reopens_as_it_looked(
    workspace: Workspace,
) -> None:
    store = workspace.store
    sid = store.create_session("Old").id
    calls = [  # the browser, a Mac tool this machine does not have, a server since removed
        ("a", "navigate", "browser", "Browser: navigate"),
        ("b", "macos", None, "macOS: calendar today"),
        ("c", "mcp__work__search", None, "work: search"),
    ]
    store.add_message(sid, "user", [{"type": "text", "text": "Go"}])
    store.add_message(
        sid,
        "assistant",
        [
            {"type": "tool_use", "id": id, "name": name, "input": {}}
            | ({"toolset_name": toolset} if toolset else {})
            for id, name, toolset, _ in calls
        ],
    )
    store.add_message(
        sid,
        "user",
        [
            {
                "type": "tool_result",
                "tool_use_id": id,
                "content": "Done.",
                CARD_KEY: {"label": label, "summary": "", "outcome": "ok", "result": "Done."},
            }
            for id, _, _, label in calls
        ],
    )
    [turn] = workspace.transcript(sid)
    assert [(e.label, e.source, e.source_title) for e in started(turn)] == [
        ("Browser: navigate", "browser", "Browser"),
        ("macOS: calendar today", "macos", "macOS"),
        ("work: search", "mcp__work__search", "work"),
    ]
