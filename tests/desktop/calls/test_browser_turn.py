"""Browser calls through the real agent: the gate asks, screenshots land on disk and in the request."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer, ToolCall
from desktop.chat.events import AgentEvent, ToolFinished, ToolStarted, TurnFinished
from desktop.system.settings.permissions import Mode, Rule
from desktop.workspace import Workspace
from tests.support.model_server import (
    ScriptedModelServer,
    browser_use,
    text_reply,
    tool_reply,
)
from tests.support.page_server import PageServer
from tests.support.turns import send, start
from tests.support.waiting import wait_until
from tools.base import Risk
from tools.browser import find_browser

pytestmark = pytest.mark.skipif(
    find_browser() is None, reason="no Chromium-family browser installed"
)


@pytest.fixture
def browsing(data_dir: Path, api_env: ScriptedModelServer) -> Iterator[Workspace]:
    """A workspace whose browser is headless, may open the test pages, and may run JavaScript."""
    data_dir.mkdir(parents=True)
    (data_dir / "settings.json").write_text(
        json.dumps(
            {
                "model": {"max_retries": 0},
                "browser": {"headless": True, "allow_hosts": "127.0.0.1", "javascript_exec": True},
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


def test_a_browsing_turn_asks_shows_and_sends_the_screenshot(
    browsing: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    person = Person(Answer(allow=True), Answer(allow=False, reason="no scripts please"))
    browsing.approvals.subscribe(person)
    model_server.enqueue(
        tool_reply(browser_use("navigate", url=pages.url("form.html")), browser_use("screenshot")),
        tool_reply(browser_use("javascript_exec", text="document.title = 'owned'")),
        text_reply("I opened the form and left the page alone."),
    )
    events: list[AgentEvent] = []
    sid = browsing.store.create_session().id

    async def go() -> None:
        await send(browsing.conversations, sid, "Open the sign-up form", events.append)
        await browsing.toolbox.close()
        await browsing.agent.close()

    asyncio.run(go())

    sent = model_server.message_requests
    assert any(t.get("type") == "browser_toolset_20260801" for t in sent[0]["tools"])
    # navigate is a change (asked), screenshot a read (runs), javascript_exec consequential (asked)
    assert [(c.action, c.risk) for c in person.asked] == [
        ("navigate", Risk.CHANGE),
        ("javascript_exec", Risk.CONSEQUENTIAL),
    ]
    navigate_result, shot_result = sent[1]["messages"][-1]["content"]
    assert navigate_result["toolset_name"] == "browser" and not navigate_result.get("is_error")
    image = next(item for item in shot_result["content"] if item["type"] == "image")
    assert image["source"]["type"] == "base64" and len(image["source"]["data"]) > 1000
    js_result = sent[2]["messages"][-1]["content"][0]
    assert js_result["is_error"] and "no scripts please" in js_result["content"][0]["text"]

    labels = [e.label for e in events if isinstance(e, ToolStarted)]
    assert labels == ["Browser: navigate", "Browser: screenshot", "Browser: javascript exec"]
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [e.outcome for e in finished] == ["ok", "ok", "denied"]
    assert (
        len(finished[1].images) == 1 and Path(finished[1].images[0]).read_bytes()[:4] == b"\x89PNG"
    )
    decisions = [(a.action, a.decision, a.decided_by) for a in reversed(browsing.store.audit())]
    assert decisions == [
        ("navigate", "allowed", "person"),
        ("screenshot", "allowed", "mode"),
        ("javascript_exec", "denied", "person"),
    ]


def test_after_a_failed_browser_call_the_rest_are_skipped_and_the_chat_goes_on(
    browsing: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    browsing.live.set_mode(Mode.AUTONOMOUS)
    model_server.enqueue(
        tool_reply(
            browser_use("navigate", url="https://not-allowed.example/"),
            browser_use("screenshot"),
            browser_use("scroll", coordinate=[10, 10], direction="down", amount=3),
        ),
        text_reply("That site is not allowed."),
    )
    events: list[AgentEvent] = []
    sid = browsing.store.create_session().id

    async def go() -> None:
        await send(browsing.conversations, sid, "Open it", events.append)
        await browsing.toolbox.close()
        await browsing.agent.close()

    asyncio.run(go())

    refused, *skipped = model_server.message_requests[1]["messages"][-1]["content"]
    # Every answer to a toolset call carries its toolset_name, or the API rejects the request.
    assert [r["toolset_name"] for r in [refused, *skipped]] == ["browser"] * 3
    assert refused["is_error"] and all(r["is_error"] for r in skipped)
    assert all("Not executed" in r["content"][0]["text"] for r in skipped)
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["error"] * 3
    assert isinstance(events[-1], TurnFinished)  # the next request was accepted


def test_stop_during_a_browser_wait_keeps_the_chat_usable(
    browsing: Workspace, model_server: ScriptedModelServer
) -> None:
    browsing.live.set_mode(Mode.AUTONOMOUS)
    model_server.enqueue(
        tool_reply(browser_use("wait", duration=20), browser_use("screenshot")),
        text_reply("Here is where we are."),
    )
    sid = browsing.store.create_session().id
    events: list[AgentEvent] = []

    async def go() -> None:
        turn = start(browsing.conversations, sid, "Wait a bit", events.append)
        await wait_until(
            lambda: any(isinstance(e, ToolStarted) for e in events), what="the wait to start"
        )
        await asyncio.sleep(0.3)
        browsing.conversations.stop(sid)
        assert (await turn).stopped
        await send(browsing.conversations, sid, "Go on", events.append)
        await browsing.toolbox.close()
        await browsing.agent.close()

    asyncio.run(go())

    sent = model_server.message_requests[1]["messages"]
    stopped = [
        block
        for message in sent
        if message["role"] == "user"
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert [(r["toolset_name"], r["is_error"]) for r in stopped] == [("browser", True)] * 2
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["stopped"] * 2
    assert isinstance(events[-1], TurnFinished)


def test_a_site_rule_for_navigate_is_checked_against_the_destination(
    browsing: Workspace, model_server: ScriptedModelServer, pages: PageServer
) -> None:
    settings = browsing.settings.model_copy(deep=True)
    settings.browser.allow_hosts = "127.0.0.1, localhost"
    settings.permissions.mode = Mode.AUTONOMOUS
    settings.permissions.rules = {"browser.navigate@localhost": Rule.NEVER}
    browsing.live.apply(settings)
    elsewhere = f"{pages.alt_origin}/second.html"
    model_server.enqueue(
        tool_reply(browser_use("navigate", url=pages.url("form.html"))),
        tool_reply(browser_use("navigate", url=elsewhere)),
        text_reply("Stayed on the form."),
    )
    events: list[AgentEvent] = []
    sid = browsing.store.create_session().id

    async def go() -> None:
        await send(browsing.conversations, sid, "Open both", events.append)
        await browsing.toolbox.close()
        await browsing.agent.close()

    asyncio.run(go())
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["ok", "blocked"]
    assert "/second.html" not in pages.paths()
