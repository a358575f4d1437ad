"""The routine's page (the sidebar's Routines section: a click on a routine, or ⋯ → Schedule…):
its schedule, what a missed run does, when it runs next, and its runs.

Save Schedule reads the picker through the core (`times`), then `Scheduler.set` asks the person
once on the plan sheet ("Run NAME on schedule, within these sites and apps"). What the core
refuses (a bad cron line, a routine not kept, a sheet declined) is said under the picker in the
core's words, and nothing the person chose is reset. Each run is a row (status, when, how long,
who started it); a click opens its chat.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from desktop.routines.book import RoutineError
from desktop.routines.schedules.book import Missed
from desktop.routines.schedules.scheduler import Scheduler
from desktop.routines.schedules.times import ScheduleError, short
from desktop.routines.schedules.unattended import Unattended
from desktop.routines.service import Routines
from desktop.system.store import RoutineRun
from ui.routines.schedule_picker import SchedulePicker

CHAT_ROLE = Qt.ItemDataRole.UserRole + 1
MISSED_CHOICES = {"run": "Run it once at the next start", "skip": "Skip it"}
TRIGGERS = {"schedule": "scheduled", "person": "by you", "command": "command line", "mcp": "MCP"}
NOT_SCHEDULED = "Not scheduled."
NO_MORE = "No run to come: its time has passed."
NO_RUNS = "No runs yet."
STALE = (
    "The routine changed since you approved its schedule: its next run waits for you on its "
    "plan sheet. Save Schedule to approve it again."
)


def status_of(run: RoutineRun, waiting: bool) -> str:
    """The run's status as the page says it: done, healed, waiting, running, failed, stopped,
    missed or skipped."""
    if run.status == "running":
        return "waiting" if waiting else "running"
    if run.status == "done" and run.healed:
        return "healed"
    return run.status


def duration(run: RoutineRun) -> str:
    if run.status in ("missed", "skipped") or (run.status == "running" and not run.seconds):
        return ""
    seconds = round(run.seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def run_words(run: RoutineRun, waiting: bool) -> str:
    """A run's row: "done · Tue 1 Dec 08:00 · 12 s · scheduled"."""
    when = datetime.fromtimestamp(run.started_at).astimezone()
    parts = [
        status_of(run, waiting),
        f"{short(when)[:3]} {when.day} {when:%b %H:%M}",
        duration(run),
    ]
    parts.append(TRIGGERS.get(run.trigger, run.trigger))
    return "  ·  ".join(part for part in parts if part)


class RoutinePage(QWidget):
    """One routine's page; `show_routine(name)` fills it, `refresh` reads it again."""

    chat_requested = Signal(int)  # a run's row was clicked: open its chat
    close_requested = Signal()

    def __init__(
        self,
        routines: Routines,
        scheduler: Scheduler,
        unattended: Unattended,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("routinePage")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)  # the canvas, as the chat's
        self.routines = routines
        self.scheduler = scheduler
        self.unattended = unattended
        self.name = ""
        self.saving: asyncio.Future[None] | None = None

        self.heading = QLabel()
        self.heading.setObjectName("routinePageHeading")
        self.task = QLabel()
        self.task.setObjectName("routinePageTask")
        self.task.setWordWrap(True)
        self.task.setTextFormat(Qt.TextFormat.PlainText)
        self.close_button = QPushButton("Back to Chat")
        self.close_button.setObjectName("routinePageClose")
        self.close_button.clicked.connect(self.close_requested)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)

        self.picker = SchedulePicker()
        self.missed = QComboBox()
        self.missed.setObjectName("routineMissed")
        for value, title in MISSED_CHOICES.items():
            self.missed.addItem(title, value)
        self.missed.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.save_button = QPushButton("Save Schedule")
        self.save_button.setObjectName("routineSaveSchedule")
        self.save_button.clicked.connect(self.save)
        self.problem = QLabel()
        self.problem.setObjectName("routinePageProblem")
        self.problem.setProperty("role", "error")
        self.problem.setWordWrap(True)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.hide()
        self.next_run = QLabel()
        self.next_run.setObjectName("routineNextRun")
        self.note = QLabel()
        self.note.setObjectName("routinePageNote")
        self.note.setWordWrap(True)
        self.note.hide()
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        form.addRow("When:", self.picker)
        form.addRow("If a run is missed:", self.missed)
        buttons = QHBoxLayout()
        buttons.addWidget(self.next_run, 1)
        buttons.addWidget(self.save_button)

        self.runs_heading = QLabel("Runs")
        self.runs_heading.setObjectName("routinePageSection")
        self.runs = QListWidget()
        self.runs.setObjectName("routineRunList")
        self.runs.itemActivated.connect(self._run_clicked)
        self.runs.itemClicked.connect(self._run_clicked)
        self.no_runs = QLabel(NO_RUNS)
        self.no_runs.setObjectName("routinePageEmpty")
        schedule_heading = QLabel("Schedule")
        schedule_heading.setObjectName("routinePageSection")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 20, 28, 20)
        layout.setSpacing(10)
        layout.addLayout(top)
        layout.addWidget(self.task)
        layout.addSpacing(6)
        layout.addWidget(schedule_heading)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.problem)
        layout.addWidget(self.note)
        layout.addSpacing(6)
        layout.addWidget(self.runs_heading)
        layout.addWidget(self.no_runs)
        layout.addWidget(self.runs, 1)
        # A choice changed since it was saved: what "Next run" says is no longer what is set.
        self.picker.changed.connect(self._edited)
        self.missed.currentIndexChanged.connect(self._edited)

    # -- showing ----------------------------------------------------------------------------

    def show_routine(self, name: str) -> None:
        """Show `name`'s page, its schedule as it is set."""
        self.name = name
        self.heading.setText(name)
        self.heading.setAccessibleName(f"Routine {name}")
        try:
            self.task.setText(self.routines.load(name).routine.task)
        except RoutineError as error:
            self.task.setText(error.message)
        entry = self.scheduler.get(name)
        self.picker.show_schedule(entry.schedule if entry else None, self.scheduler.now())
        self.missed.setCurrentIndex(max(self.missed.findData(entry.missed if entry else "run"), 0))
        self._say("")
        self.refresh()

    def refresh(self) -> None:
        """The next run, the approval's note and the runs, read again."""
        if not self.name or not shiboken6.isValid(self):
            return
        self._show_next()
        self._show_runs()

    def _show_next(self) -> None:
        entry = self.scheduler.get(self.name)
        if entry is None:
            self.next_run.setText(NOT_SCHEDULED)
            self.note.hide()
            return
        upcoming = self.scheduler.next_for(self.name)
        words = entry.schedule.words()
        if upcoming is None:
            self.next_run.setText(f"{words[:1].upper()}{words[1:]}. {NO_MORE}")
        else:
            self.next_run.setText(f"Next run: {short(upcoming)}  ({words})")
        stale = not self.scheduler.approved(self.name)
        self.note.setText(STALE if stale else "")
        self.note.setVisible(stale)

    def _show_runs(self) -> None:
        runs = self.routines.runs(self.name)
        self.runs.clear()
        for run in reversed(runs):  # newest first
            waiting = run.chat_id is not None and bool(self.unattended.waiting(run.chat_id))
            item = QListWidgetItem(run_words(run, waiting))
            item.setData(CHAT_ROLE, run.chat_id)
            opens = run.chat_id is not None and self.routines.store.session(run.chat_id)
            item.setToolTip("Open its chat" if opens else "This run has no chat")
            if not opens:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            self.runs.addItem(item)
        self.no_runs.setVisible(not runs)
        self.runs.setVisible(bool(runs))

    def run_rows(self) -> list[str]:
        return [self.runs.item(row).text() for row in range(self.runs.count())]

    def _run_clicked(self, item: QListWidgetItem) -> None:
        chat_id = item.data(CHAT_ROLE)
        if chat_id is not None and self.routines.store.session(int(chat_id)) is not None:
            self.chat_requested.emit(int(chat_id))

    def _edited(self) -> None:
        self._say("")

    def _say(self, problem: str) -> None:
        self.problem.setText(problem)
        self.problem.setVisible(bool(problem))

    # -- saving -------------------------------------------------------------------------------

    def save(self) -> asyncio.Future[None] | None:
        """Save Schedule: the schedule read, then set (the plan sheet asks once) or removed."""
        if self.saving is not None and not self.saving.done():
            return self.saving  # the sheet is up already
        self.saving = asyncio.ensure_future(self._save(self.name))
        return self.saving

    async def _save(self, name: str) -> None:
        try:
            schedule = self.picker.schedule(self.scheduler.now())
        except ScheduleError as error:
            self._say(str(error))
            return
        missed: Missed = "skip" if self.missed.currentData() == "skip" else "run"
        self.save_button.setEnabled(False)
        try:
            if schedule is None:
                self.scheduler.remove(name)
            else:
                await self.scheduler.set(name, schedule, missed)
        except RoutineError as error:
            if shiboken6.isValid(self) and self.name == name:
                self._say(error.message)
            return
        finally:
            if shiboken6.isValid(self):
                self.save_button.setEnabled(True)
        if shiboken6.isValid(self) and self.name == name:
            self._say("")
            self.refresh()
