"""A run missed while Deskhand was not running runs once at the next start (the default), or is
recorded as missed; the scheduler's own task finds it without being told."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

from desktop.routines.schedules.times import daily
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, text_reply
from tests.support.notes_routine import notes_routine
from tests.support.notification_server import NotificationService
from tests.support.schedule_clock import BERLIN, use_clock
from tests.support.waiting import wait_until
from tools.base import Risk


def test_a_missed_run_runs_once_at_the_next_start_or_is_recorded_missed(
    workspace: Workspace,
    data_dir: Path,
    model_server: ScriptedModelServer,
    notifications: NotificationService,
) -> None:
    notebook, _person = notes_routine(workspace, model_server, Risk.CHANGE)
    clock = use_clock(workspace, datetime(2026, 12, 1, 7, 0, tzinfo=BERLIN))
    asyncio.run(workspace.scheduler.set("Notes", daily("08:00", clock.now())))
    workspace.store.close()  # Deskhand quits at 07:00 on Tuesday...

    # ...and starts again on Thursday at 09:30: three 08:00s were missed (Tue, Wed, Thu).
    again = Workspace.open(data_dir)
    again.registry.add(notebook)
    use_clock(again, datetime(2026, 12, 3, 9, 30, tzinfo=BERLIN))

    async def start() -> None:
        model_server.enqueue(text_reply("Noted."))
        again.scheduler.start()  # what the app does once its window is up
        await wait_until(lambda: again.routines.runs("Notes"), what="the missed run")
        [run] = again.routines.runs("Notes")
        chat = run.chat_id or 0
        report = await again.routines.finished(chat)
        assert report.status == "done"
        assert notebook.lines[-2:] == ["milk", "eggs"]
        title = again.store.session(chat).title  # type: ignore[union-attr]
        assert title == "▶ Notes · Thu 08:00"  # the latest time it missed, run once
        await asyncio.sleep(0.3)  # the task has looked again: nothing more is due
        assert [(run.trigger, run.status) for run in again.routines.runs("Notes")] == [
            ("schedule", "done")
        ]

        # Missed runs skipped instead: Friday's 08:00 passes while Deskhand is closed.
        await again.scheduler.set("Notes", daily("08:00", again.scheduler.now()), "skip")
        use_clock(again, datetime(2026, 12, 4, 11, 0, tzinfo=BERLIN))
        assert await again.scheduler.fire_due() == ["Notes: missed"]
        statuses = [(run.trigger, run.status) for run in again.routines.runs("Notes")]
        assert statuses == [("schedule", "done"), ("schedule", "missed")]
        assert again.scheduler.next_for("Notes") == datetime(2026, 12, 5, 8, 0, tzinfo=BERLIN)
        await again.scheduler.close()
        await again.toolbox.close()
        await again.agent.close()

    try:
        asyncio.run(start())
    finally:
        again.store.close()
