"""Scheduled runs waiting for the person, in the window: the chat is marked in the sidebar
("Waiting for you: …"), and over that chat a bar says what it waits for, with Answer.

No sheet opens by itself: the core holds a waiting run's question until the person opens its
chat or clicks its notification (`Unattended.show`, `clicked`), so nothing takes the focus
from the person's other work. A chat already on show when its run begins to wait gets the bar,
not the sheet: the person may be typing in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

if TYPE_CHECKING:
    from ui.window.main_window import MainWindow

MARK = "Waiting for you: {headline}"
BAR = "“{name}” is waiting for you: {headline}"


class WaitingBar(QFrame):
    """Over a waiting run's chat: what it waits for, and Answer (its sheet)."""

    answer_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("waitingBar")
        self.label = QLabel()
        self.label.setObjectName("waitingText")
        self.label.setWordWrap(True)
        self.answer_button = QPushButton("Answer…")
        self.answer_button.setObjectName("waitingAnswer")
        self.answer_button.clicked.connect(self.answer_requested)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 8, 8, 8)
        row.addWidget(self.label, 1)
        row.addWidget(self.answer_button)
        self.hide()


class WaitingChats(QObject):
    """Marks the chats whose scheduled run waits, and offers the sheet of the one on show."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.unattended = window.workspace.unattended
        window.sessions.mark_of = self.mark_of
        self.bar = WaitingBar()
        self.bar.answer_requested.connect(self.answer)
        window.banners.addWidget(self.bar)
        # Looked at once the chat is in place: opening it may have shown its sheet meanwhile.
        window.stack.currentChanged.connect(lambda _index: QTimer.singleShot(0, self._show_bar))
        self._unsubscribe = self.unattended.subscribe(self._changed)
        window.sessions.refresh()

    def close(self) -> None:
        self._unsubscribe()

    def mark_of(self, chat_id: int) -> str:
        waits = self.unattended.waiting(chat_id)
        return MARK.format(headline=waits[0].headline) if waits else ""

    def answer(self) -> None:
        chat_id = self.window.current_session_id
        if chat_id is not None:
            self.unattended.show(chat_id)
            self._show_bar()

    def _changed(self, _chat_id: int) -> None:
        if not shiboken6.isValid(self.window):
            return
        self.window.sessions.refresh()
        self._show_bar()

    def _show_bar(self) -> None:
        if not shiboken6.isValid(self.bar):
            return
        chat_id = getattr(self.window.stack.currentWidget(), "session_id", None)
        waits = self.unattended.waiting(chat_id) if chat_id is not None else []
        # While its sheet is up, the sheet says it all.
        if waits and self.window.approval_sheet is None:
            self.bar.label.setText(BAR.format(name=waits[0].name, headline=waits[0].headline))
            self.bar.show()
        else:
            self.bar.hide()
