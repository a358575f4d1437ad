"""The routine's page in the real window (offscreen, the scripted model, a clock the test
moves, the real session bus for notifications): a bad cron line is refused in the core's
words with nothing lost; a schedule set there asks once on the schedule's sheet and then says
"Next run: Tue 08:00"; its runs are listed (done, waiting, skipped) and open their chats; a
waiting run's chat is marked in the sidebar and its sheet shows only when the chat is opened.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from PySide6.QtCore import Qt

from desktop.routines.schedules.scheduler import SHEET_TITLE
from tests.support.model_server import ScriptedModelServer, text_reply
from tests.support.notification_server import NotificationService
from tests.support.routines import NAME, record
from tests.support.schedule_clock import BERLIN, use_clock
from tests.support.window import settle
from tools.base import Risk
from ui.routines.page import RoutinePage
from ui.sheets.approval import ApprovalSheet
from ui.sheets.schedule import NOTHING, ScheduleSheet
from ui.window.main_window import MainWindow

MONDAY_0900 = datetime(2026, 12, 7, 9, 0, tzinfo=BERLIN)
BAD_CRON = (
    "“0 8 * * 1-9” is not a cron line: a field is out of range or misspelt (minute 0-59, "
    "hour 0-23, day 1-31, month 1-12, weekday 0-7)."
)


def effects_read(server: ScriptedModelServer, request: int) -> list[str]:
    """The `Effect:` lines of every tool result the model read in request `request`."""
    lines: list[str] = []
    for message in server.message_requests[request]["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                text = "\n".join(part["text"] for part in block["content"])
                if "Effect:" in text:
                    lines.extend(text.split("Effect:", 1)[1].strip().splitlines())
    return lines


def open_page(qtbot, window: MainWindow) -> RoutinePage:  # type: ignore[no-untyped-def]
    row = window.routine_runs.section.row(NAME)
    assert row is not None
    qtbot.mouseClick(row, Qt.MouseButton.LeftButton)  # on the row, not on Run
    page = window.routine_pages.page
    assert window.pages.currentWidget() is page and page.heading.text() == NAME
    return page


def mark(window: MainWindow) -> str:
    """The routine's mark in the sidebar's Routines section."""
    row = window.routine_runs.section.row(NAME)
    assert row is not None
    return row.mark.text() if not row.mark.isHidden() else ""


def fields(row: str) -> list[str]:
    return row.split("  ·  ")


def test_the_page_sets_a_schedule_once_approved_and_refuses_a_bad_cron_line(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    window: MainWindow,
    model_server: ScriptedModelServer,
    notifications: NotificationService,
) -> None:
    record(qtbot, aloop, window, model_server)
    clock = use_clock(window.workspace, MONDAY_0900)
    page = open_page(qtbot, window)
    assert page.next_run.text() == "Not scheduled."
    assert page.picker.kind.currentText() == "Off" and page.no_runs.isVisible()

    # A bad cron line: the core's words under the picker, the line still there to fix.
    page.picker.set_kind("cron")
    qtbot.keyClicks(page.picker.cron_line, "0 8 * * 1-9")
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: page.problem.isVisible(), "the refusal")
    assert page.problem.text() == BAD_CRON
    assert page.picker.cron_line.text() == "0 8 * * 1-9"
    assert page.picker.kind_value() == "cron" and window.approval_sheet is None
    assert window.workspace.scheduler.get(NAME) is None

    # Weekdays at 08:00: the schedule's sheet asks once, in words that fit a schedule.
    page.picker.set_kind("weekdays")
    assert not page.problem.isVisible()  # a new choice: the old refusal goes
    page.picker.clock.setTime(page.picker.clock.time().fromString("08:00", "HH:mm"))
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: window.approval_sheet is not None, "the schedule's sheet")
    sheet = window.approval_sheet
    assert isinstance(sheet, ScheduleSheet)
    texts = sheet.texts()
    assert texts[:2] == [SHEET_TITLE.format(name=NAME), f"Run “{NAME}” weekdays at 08:00"]
    assert NOTHING in texts  # the field and the notebook are Deskhand's own tools
    assert not page.save_button.isEnabled()  # one sheet at a time
    qtbot.mouseClick(sheet.approve, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: page.save_button.isEnabled(), "the schedule saved")
    assert page.next_run.text() == "Next run: Tue 08:00  (weekdays at 08:00)"
    assert not page.problem.isVisible() and not page.note.isVisible()
    assert window.workspace.scheduler.approved(NAME)
    # Saving again, unchanged, asks nothing: the approval still covers it.
    page.missed.setCurrentIndex(page.missed.findData("skip"))
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: window.workspace.scheduler.get(NAME).missed == "skip", "skip saved")  # type: ignore[union-attr]
    assert window.approval_sheet is None

    # Reopened, the page shows what is set; Off removes the schedule.
    window.open_session(window.workspace.store.sessions()[0].id)
    assert window.pages.currentIndex() == 0
    page = open_page(qtbot, window)
    assert (page.picker.kind_value(), page.picker.clock.time().toString("HH:mm")) == (
        "weekdays",
        "08:00",
    )
    assert page.missed.currentData() == "skip"
    page.picker.set_kind("off")
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: page.next_run.text() == "Not scheduled.", "the schedule removed")
    assert window.workspace.scheduler.get(NAME) is None
    assert clock.current == MONDAY_0900


def test_runs_are_listed_and_a_waiting_runs_sheet_shows_only_when_its_chat_opens(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    window: MainWindow,
    model_server: ScriptedModelServer,
    notifications: NotificationService,
) -> None:
    recorded = record(qtbot, aloop, window, model_server)
    workspace = window.workspace
    clock = use_clock(window.workspace, MONDAY_0900)
    page = open_page(qtbot, window)
    page.picker.set_kind("daily")
    page.picker.clock.setTime(page.picker.clock.time().fromString("08:00", "HH:mm"))
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: isinstance(window.approval_sheet, ScheduleSheet), "the sheet")
    assert isinstance(window.approval_sheet, ScheduleSheet)
    qtbot.mouseClick(window.approval_sheet.approve, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: page.next_run.text().startswith("Next run: Tue 08:00"), "next run")
    assert mark(window) == "next Tue 08:00"  # the sidebar's Routines section says so too

    # Tuesday 08:00: the run goes on unattended, and is done.
    requests = len(model_server.message_requests)
    model_server.enqueue(text_reply("The field holds Ada."))
    clock.set(MONDAY_0900 + timedelta(hours=23, seconds=20))
    assert aloop.run_until_complete(workspace.scheduler.fire_due()) == [f"{NAME}: started"]
    settle(aloop, lambda: not workspace.routines.running(), "the first run")
    assert len(model_server.message_requests) == requests + 1  # the answer alone
    assert effects_read(model_server, -1) == ['~ textbox "Name": "" → "Ada"']
    settle(aloop, lambda: page.run_rows() and fields(page.run_rows()[0])[0] == "done", "done")
    [done] = page.run_rows()
    assert fields(done)[0] == "done" and fields(done)[-1] == "scheduled"
    assert fields(done)[2].endswith(" s")
    assert page.next_run.text() == "Next run: Wed 08:00  (daily at 08:00)"

    # Wednesday: the notebook now asks each time, so the run waits for the person.
    recorded.notebook._risk = Risk.CONSEQUENTIAL  # what a consequential step is
    recorded.field.value = ""  # as before each run
    recorded.notebook.lines.clear()
    model_server.enqueue(text_reply("The field holds Ada, and the notebook says so."))
    clock.set(MONDAY_0900 + timedelta(days=1, hours=23, seconds=20))
    assert aloop.run_until_complete(workspace.scheduler.fire_due()) == [f"{NAME}: started"]
    chat = workspace.routines.running()[NAME]
    settle(aloop, lambda: workspace.unattended.waiting(chat), "the wait")
    settle(aloop, lambda: window.sessions.marks().get(chat), "the chat's mark")
    assert window.sessions.marks() == {chat: "Waiting for you: Allow Notebook: write?"}
    assert window.approval_sheet is None  # nothing over the person's work
    assert recorded.field.value == "Ada" and recorded.notebook.lines == []
    settle(aloop, lambda: mark(window) == "waiting", "the routine's mark")
    row = window.routine_runs.section.row(NAME)
    assert row is not None and row.run_button.text() == "Show"  # its chat
    settle(aloop, lambda: fields(page.run_rows()[0])[0] == "waiting", "waiting on the page")
    settle(aloop, lambda: len(notifications.posted) == 2, "the notification")
    assert [(posted.title, posted.body) for posted in notifications.posted] == [
        (f"▶ {NAME} · Tue 08:00", "The field holds Ada."),  # Tuesday's run ended
        (f"{NAME} needs you: Allow Notebook: write?", "Notebook: write 'met Ada'"),
    ]

    # Thursday's time comes while it waits: recorded as skipped.
    clock.set(MONDAY_0900 + timedelta(days=2, hours=23, seconds=20))
    assert aloop.run_until_complete(workspace.scheduler.fire_due()) == [f"{NAME}: skipped"]
    settle(aloop, lambda: len(page.run_rows()) == 3, "the skipped run")
    assert [fields(row)[0] for row in page.run_rows()] == ["skipped", "waiting", "done"]
    assert len(fields(page.run_rows()[0])) == 3  # skipped: no duration

    # A click on the waiting run opens its chat, and only now its sheet.
    qtbot.mouseClick(
        page.runs.viewport(),
        Qt.MouseButton.LeftButton,
        pos=page.runs.visualItemRect(page.runs.item(1)).center(),
    )
    assert window.current_session_id == chat and window.pages.currentIndex() == 0
    sheet = window.approval_sheet
    assert isinstance(sheet, ApprovalSheet) and sheet.request.call.session_id == chat
    qtbot.mouseClick(sheet.allow_once, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: not workspace.routines.running(), "the run's end")
    assert recorded.notebook.lines == ["met Ada"]
    settle(aloop, lambda: not window.sessions.marks(), "the mark gone")
    statuses = [run.status for run in workspace.routines.runs(NAME)]
    assert statuses == ["done", "done", "skipped"]
    settle(aloop, lambda: len(notifications.posted) == 3, "the run's notification")
    assert notifications.posted[-1].title == f"▶ {NAME} · Wed 08:00"
    aloop.run_until_complete(workspace.scheduler.close())


def test_a_waiting_chat_on_show_gets_a_bar_not_a_sheet(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    window: MainWindow,
    model_server: ScriptedModelServer,
    notifications: NotificationService,
) -> None:
    recorded = record(qtbot, aloop, window, model_server)
    workspace = window.workspace
    clock = use_clock(window.workspace, MONDAY_0900)
    page = open_page(qtbot, window)
    page.picker.set_kind("every")
    page.picker.count.setValue(15)
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: isinstance(window.approval_sheet, ScheduleSheet), "the sheet")
    assert isinstance(window.approval_sheet, ScheduleSheet)
    assert window.approval_sheet.when.text() == f"Run “{NAME}” every 15 min"
    qtbot.mouseClick(window.approval_sheet.approve, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: page.next_run.text() == "Next run: Mon 09:15  (every 15 min)", "next")

    recorded.notebook._risk = Risk.CONSEQUENTIAL
    model_server.enqueue(text_reply("Noted."))
    opened: list[int] = []

    def watch() -> None:  # the person opens the run's chat as it starts, before any step
        chat = workspace.routines.running().get(NAME)
        if chat is not None and not opened:
            opened.append(chat)
            window.sessions.refresh()
            window.open_session(chat)

    workspace.routines.subscribe(watch)
    clock.set(MONDAY_0900 + timedelta(minutes=15, seconds=5))
    assert aloop.run_until_complete(workspace.scheduler.fire_due()) == [f"{NAME}: started"]
    chat = workspace.routines.running()[NAME]
    assert opened == [chat] and window.current_session_id == chat
    settle(aloop, lambda: workspace.unattended.waiting(chat), "the wait")
    bar = window.waiting_chats.bar
    settle(aloop, lambda: bar.isVisible(), "the waiting bar")
    assert bar.label.text() == f"“{NAME}” is waiting for you: Allow Notebook: write?"
    assert window.approval_sheet is None  # they may be typing: no sheet takes the keys
    qtbot.mouseClick(bar.answer_button, Qt.MouseButton.LeftButton)
    sheet = window.approval_sheet
    assert isinstance(sheet, ApprovalSheet) and not bar.isVisible()
    qtbot.mouseClick(sheet.allow_once, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: not workspace.routines.running(), "the run's end")
    assert recorded.notebook.lines == ["met Ada"] and not bar.isVisible()
    settle(aloop, lambda: len(notifications.posted) == 2, "the run's notification")
    assert [(posted.title, posted.body) for posted in notifications.posted] == [
        (f"{NAME} needs you: Allow Notebook: write?", "Notebook: write 'met Ada'"),
        (f"▶ {NAME} · Mon 09:15", "Noted."),
    ]
    aloop.run_until_complete(workspace.scheduler.close())
