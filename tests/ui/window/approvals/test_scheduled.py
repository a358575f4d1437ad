"""A scheduled run in the real window: setting the schedule shows its sheet once; at its time
the run's question waits aside (no sheet over the person's work) and the chat is marked
waiting; opening the chat shows the sheet, and the run resumes when answered."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt

from desktop.routines.schedules.times import daily
from desktop.system.settings.permissions import Mode
from tests.support import turns
from tests.support.model_server import ToolUse, text_reply, tool_reply
from tests.support.sample_tools import NotebookTool
from tests.support.schedule_clock import BERLIN, use_clock
from tests.support.window import settle, sheet_open
from tools.base import Risk
from ui.sheets.schedule import ScheduleSheet


def test_a_waiting_run_shows_its_sheet_only_when_its_chat_is_opened(
    qtbot, window, workspace, model_server, aloop
) -> None:  # type: ignore[no-untyped-def]
    notebook = NotebookTool(risk=Risk.CHANGE)
    workspace.registry.add(notebook)
    workspace.live.set_mode(Mode.AUTONOMOUS)  # recorded without a question
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "milk"})),
        tool_reply(ToolUse(name="notebook", input={"text": "eggs"})),
        text_reply("Both are in the notebook."),
    )
    recorded = workspace.store.create_session().id
    aloop.run_until_complete(turns.send(workspace.conversations, recorded, "Note milk and eggs"))
    workspace.routines.save(workspace.routines.draft(recorded), "Notes")
    workspace.live.set_mode(Mode.ASK)  # from now on each change asks
    clock = use_clock(workspace, datetime(2026, 12, 1, 7, 59, tzinfo=BERLIN))

    setting = aloop.create_task(workspace.scheduler.set("Notes", daily("08:00", clock.now())))
    settle(aloop, lambda: sheet_open(window), "the schedule's sheet")
    schedule_sheet = window.approval_sheet
    assert isinstance(schedule_sheet, ScheduleSheet)
    assert schedule_sheet.when.text() == "Run “Notes” daily at 08:00"
    qtbot.mouseClick(schedule_sheet.approve, Qt.MouseButton.LeftButton)
    settle(aloop, setting.done, "the schedule")
    assert setting.result().approval is not None

    model_server.enqueue(text_reply("Milk and eggs are noted."))
    clock.move(minutes=1)
    assert aloop.run_until_complete(workspace.scheduler.fire_due()) == ["Notes: started"]
    chat = workspace.routines.running()["Notes"]
    settle(aloop, lambda: workspace.unattended.waiting(chat), "the run's wait")
    assert not sheet_open(window)  # nothing pops over the person's work
    [waiting] = workspace.unattended.waiting()
    assert (waiting.chat_id, waiting.headline) == (chat, "Allow Notebook: write?")

    for line in ("milk", "eggs"):
        window.open_session(chat)  # the person opens the chat: its sheet shows there
        settle(aloop, lambda: sheet_open(window), f"the sheet for {line}")
        sheet = window.approval_sheet
        assert sheet is not None and sheet.summary.text() == f"Notebook: write '{line}'"
        qtbot.mouseClick(sheet.allow_once, Qt.MouseButton.LeftButton)
        settle(
            aloop,
            lambda: not workspace.routines.running() or workspace.unattended.waiting(chat),
            "the next wait or the end",
        )
    report = aloop.run_until_complete(workspace.routines.finished(chat))
    assert (report.status, report.replayed) == ("done", 2)
    assert notebook.lines == ["milk", "eggs", "milk", "eggs"]
    assert workspace.store.session(chat).title == "▶ Notes · Tue 08:00"
    aloop.run_until_complete(workspace.scheduler.close())
