"""Scheduled runs through the real agent and pipeline, unattended: a consequential step waits
for the person (held, notified over the real session bus, shown on a click or when the chat
is opened) and the run resumes when answered; a wait nobody answers ends the run; a trigger
that comes while the routine runs is recorded as skipped; a set-back clock fires nothing twice;
and the approval lapses when the routine changes."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime

from desktop.routines.schedules.times import daily, every
from desktop.routines.schedules.unattended import NOBODY_ANSWERED
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, text_reply
from tests.support.notes_routine import notes_routine
from tests.support.notification_server import NotificationService
from tests.support.schedule_clock import BERLIN, use_clock
from tests.support.waiting import wait_until
from tools.base import Risk

TUESDAY_0759 = datetime(2026, 12, 1, 7, 59, tzinfo=BERLIN)
SCHEDULE_SHEET = "Run “Notes” on schedule, within these sites and apps"


async def _closed(workspace: Workspace) -> None:
    await workspace.scheduler.close()
    await workspace.toolbox.close()
    await workspace.agent.close()


def test_a_consequential_step_waits_notifies_and_resumes_when_answered(
    workspace: Workspace, model_server: ScriptedModelServer, notifications: NotificationService
) -> None:
    notebook, person = notes_routine(workspace, model_server, Risk.CONSEQUENTIAL)
    clock = use_clock(workspace, TUESDAY_0759)
    opened: list[int] = []
    workspace.unattended.open_chat = opened.append
    marked: list[int] = []
    workspace.unattended.subscribe(marked.append)

    async def go() -> None:
        shown = len(person.shown)
        await workspace.scheduler.set("Notes", daily("08:00", clock.now()))
        # Setting the schedule asked once, with the sheet's own headline.
        [sheet] = person.shown[shown:]
        assert sheet.title == SCHEDULE_SHEET
        assert sheet.call.summary == "Run “Notes” daily at 08:00"
        shown = len(person.shown)
        requests = len(model_server.message_requests)
        model_server.enqueue(text_reply("Milk and eggs are noted."))

        clock.move(minutes=1)
        assert await workspace.scheduler.fire_due() == ["Notes: started"]
        chat = workspace.routines.running()["Notes"]
        assert workspace.store.session(chat).title == "▶ Notes · Tue 08:00"  # type: ignore[union-attr]

        # The first step would ask: the run waits, with no sheet over the person's work.
        await wait_until(lambda: workspace.unattended.waiting(chat), what="the first wait")
        await wait_until(lambda: notifications.posted, what="the first notification")
        assert person.shown[shown:] == []
        assert notebook.lines == ["milk", "eggs"]  # the recording's, nothing yet
        first = notifications.posted[0]
        assert (first.title, first.body) == (
            "Notes needs you: Allow Notebook: write?",
            "Notebook: write 'milk'",
        )
        assert chat in marked  # the sidebar hears the chat is waiting

        # A click on the notification opens the chat, and the sheet shows there.
        notifications.click(first.id)
        await wait_until(lambda: len(person.shown) > shown, what="the sheet after the click")
        assert opened == [chat]
        assert person.shown[shown].call.summary == "Notebook: write 'milk'"
        # The second step waits again; opening the chat shows it.
        await wait_until(lambda: len(notifications.posted) == 2, what="the second notification")
        assert notifications.posted[1].body == "Notebook: write 'eggs'"
        assert workspace.unattended.show(chat)
        report = await workspace.routines.finished(chat)

        assert (report.status, report.replayed, report.model_requests) == ("done", 2, 1)
        assert len(model_server.message_requests) == requests + 1  # the answer alone
        assert notebook.lines[-2:] == ["milk", "eggs"]
        await wait_until(lambda: len(notifications.posted) == 3, what="the run's notification")
        done = notifications.posted[2]
        assert (done.title, done.body) == ("▶ Notes · Tue 08:00", "Milk and eggs are noted.")
        assert workspace.unattended.waiting() == []
        [run] = [run for run in workspace.routines.runs("Notes") if run.trigger == "schedule"]
        assert (run.status, run.chat_id) == ("done", chat)
        await _closed(workspace)

    asyncio.run(go())


def test_a_second_trigger_is_skipped_and_a_wait_nobody_answers_ends_the_run(
    workspace: Workspace, model_server: ScriptedModelServer, notifications: NotificationService
) -> None:
    notebook, _person = notes_routine(workspace, model_server, Risk.CONSEQUENTIAL)
    clock = use_clock(workspace, TUESDAY_0759)

    async def go() -> None:
        await workspace.scheduler.set("Notes", every("1m", clock.now()))
        clock.move(minutes=1)
        assert await workspace.scheduler.fire_due() == ["Notes: started"]
        chat = workspace.routines.running()["Notes"]
        await wait_until(lambda: workspace.unattended.waiting(chat), what="the wait")
        clock.move(minutes=1)
        assert await workspace.scheduler.fire_due() == ["Notes: skipped"]

        clock.move(hours=11)
        assert workspace.unattended.expire() is not None  # 12 h is not over yet
        assert workspace.routines.running() == {"Notes": chat}
        clock.move(hours=1, seconds=1)
        workspace.unattended.expire()
        report = await workspace.routines.finished(chat)
        assert (report.ok, report.status, report.error) == (False, "failed", NOBODY_ANSWERED)
        assert notebook.lines == ["milk", "eggs"]  # the step that waited never ran
        await wait_until(lambda: len(notifications.posted) == 2, what="the run's notification")
        assert notifications.posted[1].body == "Not done: nobody answered."
        runs = [run for run in workspace.routines.runs("Notes") if run.trigger == "schedule"]
        assert [(run.status, run.chat_id) for run in runs] == [("failed", chat), ("skipped", None)]
        await _closed(workspace)

    asyncio.run(go())


def test_a_clock_set_back_fires_nothing_twice_and_a_change_lapses_the_approval(
    workspace: Workspace, model_server: ScriptedModelServer, notifications: NotificationService
) -> None:
    _notebook, _person = notes_routine(workspace, model_server, Risk.CHANGE)
    clock = use_clock(workspace, TUESDAY_0759)

    async def go() -> None:
        await workspace.scheduler.set("Notes", daily("08:00", clock.now()))
        assert workspace.scheduler.approved("Notes")
        model_server.enqueue(text_reply("Noted."))
        clock.move(seconds=90)
        assert await workspace.scheduler.fire_due() == ["Notes: started"]
        await workspace.routines.finished(workspace.routines.running()["Notes"])
        clock.move(minutes=-5)  # the clock is set back across 08:00
        assert await workspace.scheduler.fire_due() == []
        clock.move(minutes=6)
        assert await workspace.scheduler.fire_due() == []
        assert workspace.scheduler.next_for("Notes") == datetime(2026, 12, 2, 8, 0, tzinfo=BERLIN)
        assert workspace.scheduler.scheduled_count() == 1
        assert workspace.scheduler.next_run() == (
            "Notes",
            datetime(2026, 12, 2, 8, 0, tzinfo=BERLIN),
        )

        # The routine changes: the approval no longer covers it.
        routine = workspace.routines.load("Notes").routine
        workspace.routines.book.save(routine.model_copy(update={"task": "Note milk"}))
        assert not workspace.scheduler.approved("Notes")
        # A schedule file changed outside Deskhand is not honoured.
        path = workspace.paths.schedules / "Notes.json"
        data = json.loads(path.read_text())
        data["schedule"]["at"] = "03:00"
        path.write_text(json.dumps(data))
        assert workspace.scheduler.scheduled_count() == 0
        await _closed(workspace)

    asyncio.run(go())
