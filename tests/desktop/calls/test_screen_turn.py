"""The screen through the real agent on a real X server (Xvfb): the first look asks, the
visualizer's hooks wrap each capture, the displays reach the context, and a screen that
becomes unusable gives a clear card and is no longer offered."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer, ToolCall
from desktop.calls.sources.screen.source import ScreenEvent, status_line
from desktop.chat.events import AgentEvent, ToolFinished
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, computer_use, text_reply, tool_reply
from tests.support.turns import send
from tests.support.x11 import Xvfb, xvfb_missing
from tools.screen import errors

NO_SERVER = ":987"  # a display number no test starts a server on


@pytest.fixture(scope="module")
def xvfb() -> Iterator[Xvfb]:
    missing = xvfb_missing()
    if missing:
        pytest.skip(missing)
    with Xvfb(1280, 800) as server:
        yield server


@pytest.fixture
def screen_workspace(
    data_dir: Path, api_env: ScriptedModelServer, xvfb: Xvfb, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Workspace]:
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", xvfb.display)
    data_dir.mkdir(parents=True)
    (data_dir / "settings.json").write_text(
        json.dumps(
            {
                "model": {"max_retries": 0},
                "permissions": {"mode": "changes"},
                "browser": {"enabled": False},
            }
        )
    )
    ws = Workspace.open(data_dir)
    yield ws
    ws.store.close()


class Person:
    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked: list[ToolCall] = []

    def __call__(self, request: ApprovalRequest) -> None:
        self.asked.append(request.call)
        request.answer(self.answers.pop(0))


def run_turn(ws: Workspace, text: str) -> list[AgentEvent]:
    events: list[AgentEvent] = []
    sid = ws.store.create_session().id

    async def go() -> None:
        await ws.toolbox.screen_source.start()
        try:
            await send(ws.conversations, sid, text, events.append)
        finally:
            await ws.toolbox.close()
            await ws.agent.close()

    asyncio.run(go())
    return events


def computer_tools(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in request.get("tools", []) if "computer" in str(t.get("type", ""))]


def test_the_first_look_asks_and_the_capture_is_wrapped_in_the_hooks(
    screen_workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    ws = screen_workspace
    person = Person(Answer(allow=True))
    ws.approvals.subscribe(person)
    order: list[str] = []

    async def before() -> None:
        order.append("before")

    ws.toolbox.screen_hooks.before_capture = before
    ws.toolbox.screen_hooks.after_capture = lambda: order.append("after")
    ws.toolbox.screen_hooks.listeners.append(
        lambda _sid, event: order.append(f"event:{event.kind}")
    )
    model_server.enqueue(
        tool_reply(computer_use("screenshot")),
        tool_reply(computer_use("screenshot")),
        text_reply("I see an empty desktop."),
    )
    run_turn(ws, "What is on my screen?")

    # Asked once, as its own question; the second look is a read in this mode.
    assert [call.summary for call in person.asked] == ["Let Claude see your screen in this chat?"]
    assert order == ["before", "after", "event:screenshot"] * 2
    first = model_server.message_requests[0]
    assert len(computer_tools(first)) == 1
    system = json.dumps(first.get("system", ""))
    assert "1280" in system and "800" in system  # the display list reached the context


def test_a_screen_that_became_unusable_gives_a_card_and_is_no_longer_offered(
    screen_workspace: Workspace, model_server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = screen_workspace
    ws.approvals.subscribe(Person(Answer(allow=True)))
    model_server.enqueue(
        tool_reply(computer_use("screenshot")),
        text_reply("The screen cannot be used; I will not try again."),
    )

    async def go() -> list[AgentEvent]:
        await ws.toolbox.screen_source.start()  # usable when Deskhand looked...
        assert ws.toolbox.screen.available
        monkeypatch.setenv("DISPLAY", NO_SERVER)  # ...then the display went away
        events: list[AgentEvent] = []
        sid = ws.store.create_session().id
        try:
            await send(ws.conversations, sid, "Take a screenshot", events.append)
        finally:
            await ws.toolbox.close()
            await ws.agent.close()
        return events

    events = asyncio.run(go())
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.is_error
    assert finished.notices == [
        "Screen control is not available: The X display could not be reached. "
        "Check that the desktop is running and that DISPLAY names it."
    ]
    first, second = model_server.message_requests
    result = second["messages"][-1]["content"][0]
    assert result["content"] == [{"type": "text", "text": errors.UNAVAILABLE}]
    assert "Do not try the screen again" in errors.UNAVAILABLE
    assert len(computer_tools(first)) == 1 and computer_tools(second) == []
    usable, line = status_line(ws.toolbox.screen.status)
    assert not usable and line.startswith("The X display could not be reached.")


def test_events_reach_the_listeners_with_their_chat(
    screen_workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    ws = screen_workspace
    ws.approvals.subscribe(Person(Answer(allow=True), Answer(allow=True)))
    seen: list[tuple[int, ScreenEvent]] = []
    ws.toolbox.screen_hooks.listeners.append(lambda sid, event: seen.append((sid, event)))
    model_server.enqueue(
        tool_reply(computer_use("screenshot")),
        tool_reply(computer_use("mouse_move", coordinate=[640, 400])),
        text_reply("Moved."),
    )
    run_turn(ws, "Move the pointer to the middle")
    [session] = ws.store.sessions()
    assert [(sid, event.kind) for sid, event in seen] == [
        (session.id, "screenshot"),
        (session.id, "move"),
    ]
    assert seen[1][1].points[0] == (640, 400)


def test_turning_the_screen_on_offers_it_without_a_restart(screen_workspace: Workspace) -> None:
    ws = screen_workspace
    settings = ws.settings.model_copy(deep=True)
    settings.screen.enabled = False
    ws.live.apply(settings)

    async def go() -> None:
        try:
            await ws.toolbox.screen_source.start()
            assert ws.toolbox.screen_source.api_tools() == []  # off: not offered
            on = ws.settings.model_copy(deep=True)
            on.screen.enabled = True
            ws.live.apply(on)
            [entry] = ws.toolbox.screen_source.api_tools()
            assert "computer" in entry["type"]
        finally:
            await ws.toolbox.close()

    asyncio.run(go())
