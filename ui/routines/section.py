"""The sidebar's Routines section: each routine with Run and a menu (Show Last Run, Remove…).

A routine that cannot run as it is carries a mark: "not kept" (changed or added outside
Deskhand: it runs once the person keeps it) or "can't read" (its file does not parse), the
problem in its tooltip; a running one is marked "running", and its Run shows its chat. The
section follows `Routines.subscribe`; like the chat list, it only reports what the person asked
for (`run_requested`, `show_requested`, `remove_requested` once agreed, `page_requested`: a
click on the routine or ⋯ → Schedule…) and the window carries it out.
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.routines.book import Listed
from desktop.routines.service import Routines
from ui.questions import ask_to_confirm
from ui.thread.tool_card import ElidedLabel

HEADING = "Routines"
EMPTY = "A finished chat saved as a routine shows here, to run again."
MAX_ROWS_SHOWN = 5  # more scroll: the chats keep most of the sidebar
NOT_KEPT_MARK = "not kept"
NOT_KEPT_TIP = (
    "Changed or added outside Deskhand: it runs once you keep it. Run shows its plan and "
    "steps first."
)
UNREADABLE_MARK = "can't read"
RUNNING_MARK = "running"
WAITING_MARK = "waiting"


class RoutineRow(QFrame):
    """One routine: its name, its mark, Run and the menu button; a click elsewhere on it is
    `clicked` (its page)."""

    clicked = Signal()

    def __init__(
        self,
        listed: Listed,
        running: bool,
        parent: QWidget | None = None,
        *,
        waiting: bool = False,
        next_run: str = "",
    ) -> None:
        super().__init__(parent)
        self.setObjectName("routineRow")
        self.routine_name = listed.name
        self.running = running
        self.problem = listed.problem
        self.kept = listed.kept
        self.state = self.state_of(listed, running, waiting, next_run)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.name_label = ElidedLabel(listed.name)
        self.name_label.setObjectName("routineName")
        self.mark = QLabel()
        self.mark.setObjectName("routineMark")
        self.run_button = QPushButton()
        self.run_button.setObjectName("routineRun")
        self.run_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.menu_button = QToolButton()
        self.menu_button.setObjectName("routineMenuButton")
        self.menu_button.setText("⋯")
        self.menu_button.setToolTip(f"More for “{listed.name}”")
        self.menu_button.setAccessibleName(f"More for the routine {listed.name}")
        self.menu_button.setAutoRaise(True)
        self.menu_button.setCursor(Qt.CursorShape.PointingHandCursor)
        if running:
            if waiting:
                self._mark(WAITING_MARK, "waiting", "Its run waits for you: Show opens its chat.")
            else:
                self._mark(
                    RUNNING_MARK, "running", "Running now: Show opens its chat, Stop stops it."
                )
            self.run_button.setText("Show")
            self.run_button.setToolTip("Show the chat this routine is running in")
        else:
            self.run_button.setText("▶ Run")
            self.run_button.setToolTip(f"Run “{listed.name}” in a new chat")
            if listed.problem:
                self._mark(UNREADABLE_MARK, "problem", listed.problem)
                self.run_button.setEnabled(False)
            elif not listed.kept:
                self._mark(NOT_KEPT_MARK, "problem", NOT_KEPT_TIP)
            elif next_run:
                self._mark(f"next {next_run}", "scheduled", f"Scheduled: next run {next_run}")
        self.mark.setVisible(bool(self.mark.text()))
        self.run_button.setAccessibleName(f"{self.run_button.text()} {listed.name}")
        # The mark goes under the name, so that a narrow sidebar still shows most of the name.
        words = QVBoxLayout()
        words.setContentsMargins(0, 0, 0, 0)
        words.setSpacing(1)
        words.addWidget(self.name_label)
        words.addWidget(self.mark, 0, Qt.AlignmentFlag.AlignLeft)
        row = QHBoxLayout(self)
        row.setContentsMargins(13, 4, 2, 4)
        row.setSpacing(6)
        row.addLayout(words, 1)
        row.addWidget(self.run_button, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.menu_button, 0, Qt.AlignmentFlag.AlignVCenter)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
            event.position().toPoint()
        ):
            self.clicked.emit()
        super().mouseReleaseEvent(event)

    @staticmethod
    def state_of(
        listed: Listed, running: bool, waiting: bool = False, next_run: str = ""
    ) -> tuple[object, ...]:
        """What the row shows: a row is made again only when this changes."""
        return (listed.name, listed.kept, listed.problem, running, waiting, next_run)

    def _mark(self, text: str, kind: str, tip: str) -> None:
        self.mark.setText(text)
        self.mark.setProperty("kind", kind)
        self.mark.setToolTip(tip)
        self.name_label.setToolTip(f"{self.routine_name}\n{tip}")


class RoutinesSection(QFrame):
    """The routines of the workspace, kept in sync with it (`refresh`)."""

    run_requested = Signal(str)  # Run (or Show, while it runs)
    show_requested = Signal(str)  # Show Last Run
    remove_requested = Signal(str)  # Remove…, once the person agreed
    page_requested = Signal(str)  # the routine's page: a click on it, or Schedule…

    def __init__(self, routines: Routines, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("routinesSection")
        self.routines = routines
        self.heading = QLabel(HEADING)
        self.heading.setObjectName("routinesHeading")
        font = self.heading.font()  # as the chat list's date headings
        font.setPointSizeF(max(font.pointSizeF() * 0.85, 7.5))
        font.setBold(True)
        self.heading.setFont(font)
        self.empty = QLabel(EMPTY)
        self.empty.setObjectName("routinesEmpty")
        self.empty.setWordWrap(True)
        self.rows_box = QWidget()
        self.rows_box.setObjectName("routineRows")
        self.rows_layout = QVBoxLayout(self.rows_box)
        self.rows_layout.setContentsMargins(0, 0, 0, 0)
        self.rows_layout.setSpacing(1)
        self.area = QScrollArea()
        self.area.setObjectName("routinesArea")
        self.area.setViewport(QWidget())  # made here: see ui/thread/column.py
        self.area.setWidget(self.rows_box)
        self.area.setWidgetResizable(True)
        self.area.setFrameShape(QFrame.Shape.NoFrame)
        self.area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.area.viewport().setAutoFillBackground(False)
        self.area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab stops at the rows' buttons
        self.rows: list[RoutineRow] = []
        # A scheduled routine's next run ("Tue 08:00") and whether its run waits for the
        # person: set by the window once schedules are known (ui/routines/page_host.py).
        self.next_run_of: Callable[[str], str] = lambda _name: ""
        self.waiting_of: Callable[[str], bool] = lambda _name: False
        self.menu: QMenu | None = None
        self.confirm_box: QMessageBox | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(4)
        layout.addWidget(self.heading)
        layout.addWidget(self.empty)
        layout.addWidget(self.area)
        self._unsubscribe = routines.subscribe(self.refresh)
        self.destroyed.connect(lambda: self._unsubscribe())
        self.refresh()

    # -- contents -------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the routines and their runs again. Rows whose routine and state did not change
        are kept: making a row costs a few ms (the window's style sheet), reading one ~1 ms."""
        if not shiboken6.isValid(self):
            return
        running = self.routines.running()
        kept = {row.state: row for row in self.rows}
        rows: list[RoutineRow] = []
        for listed in self.routines.entries():
            name = listed.name
            state = (name in running, self.waiting_of(name), self.next_run_of(name))
            row = kept.pop(RoutineRow.state_of(listed, *state), None)
            rows.append(row if row is not None else self._row(listed, *state))
        for row in kept.values():
            self.rows_layout.removeWidget(row)
            row.deleteLater()
        for index, row in enumerate(rows):
            self.rows_layout.insertWidget(index, row)  # moves a kept row to its place
        self.rows = rows
        self.empty.setVisible(not self.rows)
        self.area.setVisible(bool(self.rows))
        self._fit()

    def _row(self, listed: Listed, running: bool, waiting: bool, next_run: str) -> RoutineRow:
        row = RoutineRow(listed, running, waiting=waiting, next_run=next_run)
        row.run_button.clicked.connect(lambda _=False, n=listed.name: self.run_requested.emit(n))
        row.menu_button.clicked.connect(lambda _=False, r=row: self._menu_for(r, None))
        row.clicked.connect(lambda n=listed.name: self.page_requested.emit(n))
        row.setCursor(Qt.CursorShape.PointingHandCursor)
        row.setToolTip(f"Open “{listed.name}”: its schedule and runs")
        row.customContextMenuRequested.connect(lambda at, r=row: self._menu_for(r, at))
        return row

    def _fit(self) -> None:
        shown = self.rows[:MAX_ROWS_SHOWN]
        spacing = self.rows_layout.spacing()
        height = sum(row.sizeHint().height() + spacing for row in shown)
        self.area.setFixedHeight(max(height, 0))

    def names(self) -> list[str]:
        return [row.routine_name for row in self.rows]

    def row(self, name: str) -> RoutineRow | None:
        return next((row for row in self.rows if row.routine_name == name), None)

    # -- the menu -------------------------------------------------------------------

    def menu_of(self, name: str) -> QMenu:
        """The routine's menu (not shown): Show Last Run when there is one, Schedule…,
        Remove…."""
        menu = QMenu(self)
        last = self.routines.last_run(name)
        if last is not None:
            menu.addAction("Show Last Run", lambda: self.show_requested.emit(name))
        menu.addAction("Schedule…", lambda: self.page_requested.emit(name))
        remove = menu.addAction("Remove…", lambda: self.confirm_remove(name))
        row = self.row(name)
        remove.setEnabled(row is None or not row.running)
        return menu

    def _menu_for(self, row: RoutineRow, at: QPoint | None) -> None:
        menu = self.menu_of(row.routine_name)
        self.menu = menu
        where = row.menu_button.rect().bottomLeft() if at is None else at
        widget: QWidget = row.menu_button if at is None else row
        menu.popup(widget.mapToGlobal(where))

    def confirm_remove(self, name: str) -> QMessageBox:
        """Ask before removing; `remove_requested` follows only if the person agrees."""
        box = ask_to_confirm(
            self,
            title="Remove routine",
            question=f"Remove the routine “{name}”?",
            detail="Its file is deleted. The chats of its runs stay. This can't be undone.",
            verb="Remove",
            then=lambda: self.remove_requested.emit(name),
            ended=lambda: setattr(self, "confirm_box", None),
        )
        self.confirm_box = box
        return box
