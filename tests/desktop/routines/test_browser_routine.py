"""The documentation task as a routine, in the real browser: recorded, saved with a parameter,
replayed with no model request but the answer, healed once its link was renamed, and back to no
request after Update routine."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.routines.book import RoutineError
from desktop.routines.record import SECRET
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, browser_use, text_reply, tool_reply
from tests.support.page_server import PageServer
from tests.support.plan_sites import SETTINGS, PlanSites, documentation_task, plan_sites
from tests.support.routine_task import ANSWER, HEAL, RENAMED, approve_all, record, replay
from tests.support.turns import send
from tools.browser import find_browser

pytestmark = pytest.mark.skipif(
    find_browser() is None, reason="no Chromium-family browser installed"
)


@pytest.fixture
def docs(data_dir: Path, api_env: ScriptedModelServer) -> Iterator[tuple[Workspace, PlanSites]]:
    data_dir.mkdir(parents=True)
    (data_dir / "settings.json").write_text(json.dumps(SETTINGS))
    workspace = Workspace.open(data_dir)
    with plan_sites() as sites:
        yield workspace, sites
    workspace.store.close()


def test_the_docs_task_replays_heals_and_updates(
    docs: tuple[Workspace, PlanSites], model_server: ScriptedModelServer
) -> None:
    workspace, sites = docs
    approver = approve_all(workspace)

    async def go() -> None:
        replies = documentation_task(sites, with_plan=True)
        await record(workspace, sites, model_server, replies)
        draft = workspace.routines.draft()
        assert draft.refusal == ""
        assert draft.plan.domains == ["docs.example"]
        search = next(step for step in draft.steps if step.member == "left_click")
        assert search.target is not None and search.target.role in ("searchbox", "textbox")
        routine = workspace.routines.save(draft, "Docs search", {"topic": "list comprehensions"})
        assert any("{{topic}}" in json.dumps(step.input) for step in routine.steps)
        recorded_requests = len(model_server.message_requests)

        # 1. Replayed: the plan sheet once, every step without the model, then the answer.
        asked_before = len(approver.asked)
        model_server.enqueue(text_reply(ANSWER))
        report = await replay(workspace, sites, "Docs search", {"topic": "loops"})
        assert (report.status, report.healed, report.model_requests) == ("done", 0, 1)
        assert report.replayed == len(routine.steps)
        assert len(model_server.message_requests) == recorded_requests + 1
        assert [call.action for call in approver.asked[asked_before:]] == ["update_plan"]
        assert report.answer == ANSWER
        typed = [hit for hit in sites.docs.hits if "search" in hit[1]]
        assert typed and "loops" in typed[-1][1]  # the parameter's value was searched for

        # 2. The first result's link was renamed: that step alone heals.
        sites.docs.edits.update(RENAMED)
        model_server.enqueue(*HEAL, text_reply(ANSWER))
        healed = await replay(workspace, sites, "Docs search")
        assert (healed.status, healed.healed) == ("done", 1)
        assert healed.model_requests <= 3
        [step] = [step for step in healed.steps if step.status == "healed"]
        assert "List comprehensions" in step.why
        offer = workspace.routines.update_for(healed.chat_id or 0)
        assert offer is not None and any("Comprehensions" in line for line in offer.diff)
        workspace.routines.apply_update(healed.chat_id or 0)

        # 3. Updated: back to no request but the answer.
        model_server.enqueue(text_reply(ANSWER))
        again = await replay(workspace, sites, "Docs search")
        assert (again.status, again.healed, again.model_requests) == ("done", 0, 1)
        await workspace.agent.close()

    asyncio.run(go())


def test_a_chat_that_acted_on_a_password_field_cannot_become_a_routine(
    data_dir: Path, api_env: ScriptedModelServer, pages: PageServer
) -> None:
    data_dir.mkdir(parents=True)
    settings = {
        "model": {"max_retries": 0},
        "browser": {"headless": True, "allow_hosts": "127.0.0.1"},
        "permissions": {"mode": "autonomous"},
    }
    (data_dir / "settings.json").write_text(json.dumps(settings))
    workspace = Workspace.open(data_dir)
    password = {"type": "coordinate", "x": 260, "y": 118}
    api_env.enqueue(
        tool_reply(browser_use("navigate", url=pages.url("login.html"))),
        tool_reply(browser_use("left_click", target=password)),
        tool_reply(browser_use("type", text="hunter2")),
        text_reply("The field would not take it."),
    )

    async def go() -> None:
        chat = workspace.store.create_session().id
        try:
            await send(workspace.conversations, chat, "Sign me in")
        finally:
            await workspace.toolbox.close()
            await workspace.agent.close()

    try:
        asyncio.run(go())
        draft = workspace.routines.draft()
        assert draft.refusal == SECRET  # "sign in by hand with Take over; routines never hold…"
        with pytest.raises(RoutineError) as refused:
            workspace.routines.save(draft, "Sign in")
        assert refused.value.code == "refused"
        assert workspace.routines.entries() == []
    finally:
        workspace.store.close()
