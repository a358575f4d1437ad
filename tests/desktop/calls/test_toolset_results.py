"""Results Deskhand writes itself for browser calls (stopped, not executed, left open) echo the
toolset, as the API requires: otherwise the next request of that chat is refused (400)."""

from __future__ import annotations

import asyncio
from typing import Any

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, browser_use, text_reply, tool_reply
from tests.support.recorder import Recorder
from tests.support.turns import send, start
from tests.support.waiting import wait_until


def results_sent(server: ScriptedModelServer) -> list[dict[str, Any]]:
    """The tool_results of the last request the app sent."""
    return [
        block
        for message in server.message_requests[-1]["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def next_turn_is_answered(ws: Workspace, server: ScriptedModelServer, sid: int) -> None:
    server.enqueue(text_reply("Carrying on."))
    rec = Recorder()

    async def go() -> None:
        try:
            await send(ws.conversations, sid, "Go on", rec)
        finally:
            await ws.agent.close()

    asyncio.run(go())
    assert rec.text == "Carrying on."
    sent = results_sent(server)
    assert sent and all(r.get("toolset_name") == "browser" for r in sent)


def test_a_browser_call_left_open_by_a_crash(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    sid = workspace.store.create_session().id
    workspace.store.add_message(sid, "user", [{"type": "text", "text": "Open the site"}])
    use = {"type": "tool_use", "id": "toolu_open", "name": "navigate", "input": {"url": "x"}}
    workspace.store.add_message(sid, "assistant", [{**use, "toolset_name": "browser"}])
    next_turn_is_answered(workspace, model_server, sid)


def test_browser_calls_not_run_after_one_failed(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    workspace.approvals.subscribe(lambda request: request.answer(Answer(allow=False)))
    model_server.enqueue(
        tool_reply(browser_use("navigate", url="https://example.com"), browser_use("screenshot")),
        text_reply("I was not allowed."),
    )
    sid = workspace.store.create_session().id
    asyncio.run(send(workspace.conversations, sid, "Open the site"))
    next_turn_is_answered(workspace, model_server, sid)


def test_a_browser_call_stopped_while_it_waited(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    asked: list[ApprovalRequest] = []
    workspace.approvals.subscribe(asked.append)  # nobody answers: the person presses Stop
    model_server.enqueue(tool_reply(browser_use("navigate", url="https://example.com")))
    sid = workspace.store.create_session().id

    async def stop_while_asking() -> None:
        turn = start(workspace.conversations, sid, "Open the site")
        await wait_until(lambda: asked, limit=30, what="the approval request")
        workspace.conversations.stop(sid)
        assert (await turn).stopped

    asyncio.run(stop_while_asking())
    next_turn_is_answered(workspace, model_server, sid)
