"""The message box under the thread: Enter sends, Shift+Enter adds a line, Esc stops.

Its button reads Send, or Stop while a reply is being written; the window decides what
sending and stopping mean, the composer only reports the person's intent.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPlainTextEdit, QPushButton, QWidget

from ui.theme import FocusRing

MAX_VISIBLE_LINES = 8
PLACEHOLDER = "Message Claude…  (Enter to send, Shift+Enter for a new line)"


class MessageEdit(QPlainTextEdit):
    """A plain-text editor whose Enter submits instead of breaking the line."""

    submit = Signal()
    stop = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submit.emit()
            event.accept()
            return
        if key == Qt.Key.Key_Escape:
            self.stop.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class Composer(QFrame):
    """Editor plus Send/Stop button; emits `submitted(text)` and `stop_requested()`."""

    submitted = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.editor = MessageEdit()
        self.editor.setObjectName("composerEdit")
        self.editor.setPlaceholderText(PLACEHOLDER)
        self.editor.setTabChangesFocus(True)
        self.editor.setFrameShape(QFrame.Shape.NoFrame)
        self.editor.submit.connect(self._submit)
        self.editor.stop.connect(self._stop)
        self.editor.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("sendButton")
        self.send_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.send_button.clicked.connect(self._button_clicked)
        self.running = False

        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        layout.setSpacing(8)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        FocusRing(self, self.editor)
        self._fit_height()

    def text(self) -> str:
        return self.editor.toPlainText()

    def clear(self) -> None:
        self.editor.clear()

    def set_running(self, running: bool) -> None:
        """While a reply runs the button stops it, and Enter does not send."""
        self.running = running
        self.send_button.setText("Stop" if running else "Send")
        self.send_button.setToolTip("Stop the reply (Esc)" if running else "Send (Enter)")
        self.send_button.setProperty("running", running)
        self.send_button.style().unpolish(self.send_button)
        self.send_button.style().polish(self.send_button)

    def _submit(self) -> None:
        if not self.running and self.text().strip():
            self.submitted.emit(self.text())

    def _stop(self) -> None:
        if self.running:
            self.stop_requested.emit()

    def _button_clicked(self) -> None:
        if self.running:
            self.stop_requested.emit()
        else:
            self._submit()

    def _fit_height(self) -> None:
        # Grow with the text up to a few lines, then scroll inside the editor.
        lines = max(1, min(MAX_VISIBLE_LINES, self.editor.document().lineCount()))
        line_height = self.editor.fontMetrics().lineSpacing()
        margins = self.editor.contentsMargins()
        chrome = int(self.editor.document().documentMargin() * 2) + margins.top() + margins.bottom()
        height = lines * line_height + chrome + 4
        if self.editor.height() != height:
            self.editor.setFixedHeight(height)


STYLE = """
#composer {
    background: $surface; border: 1px solid $border; border-radius: 12px; padding: 1px;
}
#composer[focused="true"] { border: 2px solid $focus; padding: 0px; }
#composerEdit {
    background: transparent; color: $text; border: none; padding: 0px;
    selection-background-color: $accent; selection-color: $on_accent;
}
#composerEdit:focus { border: none; padding: 0px; }
#composerEdit QScrollBar:vertical { width: 10px; margin: 0px; }
#sendButton {
    background: $accent; color: $on_accent; border: none; border-radius: 8px;
    padding: 6px 16px; font-weight: 600;
}
#sendButton:hover { background: $accent_hover; }
#sendButton:focus { border: 2px solid $text; padding: 4px 14px; }
#sendButton[running="true"] { background: $hover; color: $text; }
#sendButton[running="true"]:hover { background: $selected; }
"""
