"""The quick entry's offer of routines: typing the start of a routine's name offers it under the
text box; Tab completes the name, and Enter on a routine's exact name runs it (each parameter
its default) instead of sending the text to Claude."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import QLabel, QPlainTextEdit

from desktop.routines.service import Routines

MAX_OFFERED = 3


def offered(names: list[str], text: str) -> list[str]:
    """The routines whose names begin with `text` (case aside), the exact one first."""
    typed = text.strip()
    if not typed or "\n" in typed:
        return []
    found = [name for name in names if name.casefold().startswith(typed.casefold())]
    return sorted(found, key=lambda name: (name != typed, name.casefold()))


class RoutineOffer(QObject):
    """The offer line under a text box, and its Tab."""

    def __init__(self, editor: QPlainTextEdit, label: QLabel, routines: Routines) -> None:
        super().__init__(editor)
        self.editor = editor
        self.label = label
        self.routines = routines
        self.names: list[str] = []
        self.label.setObjectName("routineOffer")
        self.label.setWordWrap(True)
        self.label.hide()
        self._read_names()
        self._unsubscribe = routines.subscribe(self._read_names)
        self.destroyed.connect(lambda: self._unsubscribe())
        editor.textChanged.connect(self._typed)
        editor.installEventFilter(self)

    def _read_names(self) -> None:
        # Unreadable files are left out: there is nothing to run.
        self.names = [entry.name for entry in self.routines.entries() if not entry.problem]
        if shiboken6.isValid(self.editor):
            self._typed()

    def matches(self) -> list[str]:
        return offered(self.names, self.editor.toPlainText())

    def exact(self, text: str) -> str | None:
        """The routine `text` names exactly, if one does: Enter runs it rather than sending
        the text to Claude."""
        typed = text.strip()
        return typed if typed in self.names else None

    def _typed(self) -> None:
        matches = self.matches()
        if not matches:
            self.label.hide()
            return
        text = self.editor.toPlainText().strip()
        if matches[0] == text:
            more = f"  ·  Tab: {matches[1]}" if len(matches) > 1 else ""
            self.label.setText(f"▶ Run the routine “{text}”: Enter{more}")
        else:
            shown = ", ".join(f"“{name}”" for name in matches[:MAX_OFFERED])
            extra = len(matches) - MAX_OFFERED
            shown += f" and {extra} more" if extra > 0 else ""
            self.label.setText(f"▶ Routine {shown}: Tab completes, then Enter runs")
        self.label.show()

    def complete(self) -> bool:
        """Tab: the text becomes the next offered name; False when nothing is offered."""
        matches = self.matches()
        if not matches:
            return False
        text = self.editor.toPlainText().strip()
        chosen = matches[1] if matches[0] == text and len(matches) > 1 else matches[0]
        if chosen == text:
            return False  # complete already: Tab moves on as usual
        self.editor.setPlainText(chosen)
        self.editor.moveCursor(QTextCursor.MoveOperation.End)
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.editor
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Tab
            and event.modifiers() == Qt.KeyboardModifier.NoModifier
        ):
            return self.complete()
        return super().eventFilter(watched, event)
