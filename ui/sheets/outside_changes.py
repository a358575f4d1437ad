"""Sheets for what changed outside Deskhand: permission settings, and connectors to start.

Permission settings written by another program are not in force until the person keeps them;
a connector added or changed in mcp.json outside Settings does not start until the person lets
it. The window asks at launch, and as soon as it notices a change (`ui/sheets/outside_watch.py`
looks every moment). Each sheet is window-modal and opened with `open()`: Ctrl+Return (Cmd+Return on a
Mac) keeps or starts; Esc, closing it, and the default button discard or leave it stopped,
since that is the safe answer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase, QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.calls.sources.mcp.config import ServerEntry
from desktop.system.settings.signed import OutsideChange

KEEP_KEYS = "⌘↩" if sys.platform == "darwin" else "Ctrl+↩"
DETAILS_MAX = 280
SHORT_PATH_PARTS = 3  # longer paths show as "…/name" in a sheet's title (the details have all)

PERMISSIONS_TITLE = "Your permission settings were changed outside Deskhand:"
PERMISSIONS_NOTE = (
    "Until you keep them, the settings Deskhand last saved apply. If you did not make these "
    "changes, discard them: another program may have tried to give Claude more rights."
)
CONNECTOR_NOTE = (
    "It was added or changed outside Deskhand's Settings. It runs as a program with your "
    "rights, so start it only if you know it. Left stopped, it waits in Settings → Connectors."
)


def short_command(entry: ServerEntry) -> str:
    """A connector's command line for a title: long paths as "…/name"."""
    if entry.url:
        return entry.url
    words = []
    for word in [entry.command or "", *entry.args]:
        if "/" in word and len(Path(word).parts) > SHORT_PATH_PARTS:
            word = "…/" + Path(word).name
        words.append(f'"{word}"' if not word or any(c.isspace() for c in word) else word)
    return " ".join(words)


def exact_entry(entry: ServerEntry) -> str:
    """Exactly what starting the connector means, with every invisible character escaped."""
    shown: dict[str, object] = (
        {"url": entry.url, "headers": sorted(entry.headers)}
        if entry.url
        else {"command": entry.command, "args": entry.args, "cwd": entry.cwd}
    )
    if entry.env:
        shown["environment variables"] = sorted(entry.env)
    shown["trusted"] = entry.trusted
    return json.dumps({k: v for k, v in shown.items() if v is not None}, indent=2)


class OutsideChangeSheet(QDialog):
    """One question with a safe answer: `answered(True)` keeps or starts; anything else not."""

    answered = Signal(bool)

    def __init__(
        self,
        title: str,
        lines: list[str],
        note: str,
        details: str,
        yes: str,
        no: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("outsideChangeSheet")
        self.setWindowTitle("Changed outside Deskhand")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(540)
        self._answered = False

        self.title = QLabel(title)
        self.title.setObjectName("outsideChangeTitle")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.lines = QLabel("\n".join(f"•  {line}" for line in lines))
        self.lines.setObjectName("outsideChangeLines")
        self.lines.setTextFormat(Qt.TextFormat.PlainText)
        self.lines.setWordWrap(True)
        self.lines.setVisible(bool(lines))
        self.note = QLabel(note)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.setEnabled(False)  # secondary: the palette's muted text

        self.details = QPlainTextEdit(details)
        self.details.setObjectName("approvalInput")  # styled as the approval sheet's input
        self.details.setReadOnly(True)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setPointSizeF(mono.pointSizeF() * 0.9)
        self.details.setFont(mono)
        # Every line in sight where it fits: long paths wrap, so count them as they will.
        metrics = self.details.fontMetrics()
        width = max(1, (self.minimumWidth() - 40) // max(1, metrics.horizontalAdvance("m")))
        rows = sum(1 + len(line) // width for line in details.splitlines()) + 1
        self.details.setFixedHeight(min(DETAILS_MAX, max(48, rows * metrics.lineSpacing() + 14)))
        self.details.setVisible(bool(details))
        self.details_title = QLabel("Exactly what starts")
        self.details_title.setTextFormat(Qt.TextFormat.PlainText)
        self.details_title.setEnabled(False)  # secondary, as the approval sheet's input title
        self.details_title.setVisible(bool(details))

        self.yes = QPushButton(f"{yes}  {KEEP_KEYS}")
        self.no = QPushButton(f"{no}  Esc")
        for button in (self.yes, self.no):
            button.setAutoDefault(False)
        self.no.setDefault(True)  # the safe answer
        self.yes.clicked.connect(lambda: self._finish(True))
        self.no.clicked.connect(self.reject)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.no)
        buttons.addWidget(self.yes)
        layout = QVBoxLayout(self)
        layout.setSpacing(10)
        layout.addWidget(self.title)
        layout.addWidget(self.lines)
        layout.addWidget(self.details_title)
        layout.addWidget(self.details)
        layout.addWidget(self.note)
        layout.addLayout(buttons)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.yes.click()
            return
        super().keyPressEvent(event)

    def _finish(self, yes: bool) -> None:
        if not self._answered:
            self._answered = True
            self.answered.emit(yes)
        self.accept() if yes else self.reject()

    def reject(self) -> None:  # Esc, the close button, or the safe button
        if not self._answered:
            self._answered = True
            self.answered.emit(False)
        super().reject()


def permissions_sheet(change: OutsideChange, parent: QWidget) -> OutsideChangeSheet:
    return OutsideChangeSheet(
        PERMISSIONS_TITLE,
        change.differences,
        PERMISSIONS_NOTE,
        "",
        "Keep changes",
        "Discard",
        parent,
    )


def connector_sheet(
    name: str, entry: ServerEntry, *, changed: bool, parent: QWidget
) -> OutsideChangeSheet:
    kind = "Changed connector" if changed else "New connector"
    return OutsideChangeSheet(
        f"{kind} “{name}”: {short_command(entry)}. Start it?",
        [],
        CONNECTOR_NOTE,
        exact_entry(entry),
        "Start",
        "Leave stopped",
        parent,
    )
