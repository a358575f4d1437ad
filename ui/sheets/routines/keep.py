"""The keep sheet: "keep this routine?", for a routine file Deskhand did not write.

A routine changed or added outside Deskhand, or imported (File → Import Routine…), runs only
once the person keeps it. The sheet shows what keeping it allows: its name, task, plan, and
each step in its words with its target and the exact input it will send (every invisible or
non-ASCII character escaped: a file from elsewhere may say one thing in its words and do
another in its input). Cancel is the default; Esc and closing it cancel; Ctrl+Return (Cmd+Return
on a Mac) keeps. Window-modal, opened with `open()`, never `exec()`.
"""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase, QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.routines.model import Routine, Step
from ui.boxes import STRETCH, boxed
from ui.sheets.approval import plain_label
from ui.sheets.routines.parts import (
    SHEET_WIDTH,
    RoutineSheet,
    Scrolled,
    heading,
    plan_lines,
    sheet_title,
    short_words,
    target_words,
)

KEEP_KEYS = "⌘↩" if sys.platform == "darwin" else "Ctrl+↩"
NOTE = (
    "This routine was changed or added outside Deskhand, so it does not run until you keep it. "
    "Keep it only if these steps are what you want done: its plan is still asked once per run, "
    "and consequential steps still ask."
)
INPUT_COLUMNS = 64  # characters of the fixed-width input a line holds at the sheet's width
REPLACES = "Keeping it replaces your routine “{name}”."


def hard_wrapped(text: str, columns: int = INPUT_COLUMNS) -> str:
    """`text` broken every `columns` characters: an address or a long value has no space to
    wrap at, and would widen the sheet past the screen; every character stays in sight."""
    return "\n".join(text[start : start + columns] for start in range(0, len(text), columns))


def input_words(step: Step) -> str:
    """The exact input a step sends, on one line, with every invisible character escaped."""
    return json.dumps(step.input, ensure_ascii=True, sort_keys=True)


class KeepRoutineSheet(RoutineSheet):
    """Asks whether to keep one routine; `answered(True)` keeps it, anything else does not."""

    answered = Signal(bool)

    def __init__(
        self, routine: Routine, parent: QWidget | None = None, *, replaces: bool = False
    ) -> None:
        super().__init__(parent)
        self.routine = routine
        self.setObjectName("routineKeepSheet")
        self.setWindowTitle("Keep routine")
        self._answered = False

        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setPointSizeF(mono.pointSizeF() * 0.9)
        body = QWidget()
        body.setObjectName("routineBody")
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 8, 0)
        column.setSpacing(6)
        column.addWidget(heading("Task"))
        self.task = plain_label(short_words(routine.task) or "(none)", "routineItem")
        column.addWidget(self.task)
        column.addSpacing(4)
        column.addWidget(heading("Plan"))
        self.plan = [plain_label(line, "routineItem") for line in plan_lines(routine.plan)]
        for label in self.plan:
            column.addWidget(label)
        if routine.parameters:
            column.addSpacing(4)
            column.addWidget(heading("Parameters"))
            for parameter in routine.parameters:
                default = f" (default “{parameter.default}”)" if parameter.default else ""
                line = short_words(f"{parameter.name}{default}")
                column.addWidget(plain_label(line, "routineItem"))
        column.addSpacing(4)
        column.addWidget(heading("Steps"))
        self.steps: list[QLabel] = []
        for number, step in enumerate(routine.steps, 1):
            words = plain_label(
                short_words(f"{number}. {step.words or step.member}"), "routineStep"
            )
            self.steps.append(words)
            column.addWidget(words)
            target = target_words(step)
            if target:
                column.addWidget(plain_label(short_words(target), "routineTarget", muted=True))
            exact = plain_label(
                hard_wrapped(f"{step.source} · {step.member} {input_words(step)}"),
                "routineInput",
            )
            exact.setFont(mono)
            column.addWidget(exact)
        column.addStretch(1)  # a taller sheet leaves its room under the last line

        self.keep = QPushButton(f"Keep  {KEEP_KEYS}")
        self.keep.setObjectName("keepRoutine")
        self.cancel = QPushButton("Cancel  Esc")
        for button in (self.keep, self.cancel):
            button.setAutoDefault(False)
        self.cancel.setDefault(True)  # the safe answer
        self.keep.clicked.connect(lambda: self._finish(True))
        self.cancel.clicked.connect(self.reject)

        self.note = plain_label(NOTE, "routineNote", muted=True)
        self.replaces = plain_label(REPLACES.format(name=routine.name), "routineError")
        self.replaces.setVisible(replaces)
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        layout.addWidget(sheet_title(f"Keep the routine “{routine.name}”?"))
        layout.addWidget(self.note)
        layout.addWidget(Scrolled(body, SHEET_WIDTH - 24), 1)
        layout.addWidget(self.replaces)
        layout.addLayout(boxed(QHBoxLayout(), STRETCH, self.cancel, self.keep))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.keep.click()
            return
        super().keyPressEvent(event)

    def _finish(self, keep: bool) -> None:
        if not self._answered:
            self._answered = True
            self.answered.emit(keep)
        self.accept() if keep else self.reject()

    def reject(self) -> None:  # Esc, closing it, or Cancel
        if not self._answered:
            self._answered = True
            self.answered.emit(False)
        super().reject()
