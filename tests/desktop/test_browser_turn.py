"""Browser calls through the real agent: the gate asks, screenshots land on disk and in the request."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.events import AgentEvent, ToolFinished, ToolStarted
from desktop.permissions import Answer, ApprovalRequest, ToolCall
from desktop.workspace import Workspace
from tests.support.model_server import (
    ScriptedModelServer,
    browser_use,
    text_reply,
    tool_reply,
)
from tests.support.page_server import PageServer
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
    browsing.gate.approver = person
    model_server.enqueue(
        tool_reply(browser_use("navigate", url=pages.url("form.html")), browser_use("screenshot")),
        tool_reply(browser_use("javascript_exec", text="document.title = 'owned'")),
        text_reply("I opened the form and left the page alone."),
    )
    events: list[AgentEvent] = []
    sid = browsing.store.create_session().id

    async def go() -> None:
        await browsing.agent.run_turn(sid, "Open the sign-up form", events.append)
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
