"""The documentation task as a scheduled routine, in the real browser: setting its schedule
shows the plan sheet once ("Run … on schedule, within these sites and apps"); at its time the
run's plan is approved from that approval (audited as such), every step runs with no sheet and
no model request (one request writes the answer), and the run's notification carries its title
and the answer's first line."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer
from desktop.routines.schedules.times import daily
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, text_reply
from tests.support.notification_server import NotificationService
from tests.support.plan_sites import (
    SETTINGS,
    Approver,
    PlanSites,
    documentation_task,
    plan_sites,
    use_plan_browser,
)
from tests.support.routine_task import ANSWER, record
from tests.support.schedule_clock import BERLIN, use_clock
from tests.support.waiting import wait_until
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


def test_a_scheduled_run_goes_on_inside_the_schedules_one_approval(
    docs: tuple[Workspace, PlanSites],
    model_server: ScriptedModelServer,
    notifications: NotificationService,
) -> None:
    workspace, sites = docs
    leave = workspace.approvals.subscribe(Approver())  # the person while recording
    clock = use_clock(workspace, datetime(2026, 12, 1, 7, 59, tzinfo=BERLIN))

    async def go() -> None:
        await record(workspace, sites, model_server, documentation_task(sites, with_plan=True))
        routine = workspace.routines.save(workspace.routines.draft(), "Docs search")
        leave()
        shown: list[ApprovalRequest] = []

        def person(request: ApprovalRequest) -> None:
            shown.append(request)
            request.answer(Answer(allow=True))

        workspace.approvals.subscribe(person)
        await workspace.scheduler.set("Docs search", daily("08:00", clock.now()))
        [sheet] = shown
        assert sheet.note == "update_plan"  # the plan sheet, with its own headline
        assert sheet.title == "Run “Docs search” on schedule, within these sites and apps"
        assert sheet.call.input["domains"] == ["docs.example"]

        requests = len(model_server.message_requests)
        model_server.enqueue(text_reply(ANSWER))
        use_plan_browser(workspace, sites)
        clock.move(minutes=1)
        assert await workspace.scheduler.fire_due() == ["Docs search: started"]
        chat = workspace.routines.running()["Docs search"]
        async with asyncio.timeout(120):  # a run that waited for a sheet would never end
            report = await workspace.routines.finished(chat)
        await workspace.toolbox.close()

        assert (report.status, report.replayed, report.healed) == ("done", len(routine.steps), 0)
        assert report.model_requests == 1  # the answer; no step went to the model
        assert len(model_server.message_requests) == requests + 1
        assert shown == [sheet]  # no sheet during the run
        assert workspace.unattended.waiting() == []
        [plan_row] = [
            row
            for row in workspace.store.audit()
            if row.session_id == chat and row.tool == "update_plan"
        ]
        assert (plan_row.decision, plan_row.decided_by) == ("allowed", "person")
        assert "by the person's approval of the schedule on 2026-12-01 07:59" in plan_row.summary
        await wait_until(lambda: notifications.posted, what="the run's notification")
        [posted] = notifications.posted
        assert (posted.title, posted.body) == ("▶ Docs search · Tue 08:00", ANSWER)
        await workspace.scheduler.close()
        await workspace.agent.close()

    asyncio.run(go())
