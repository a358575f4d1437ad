"""The items of a conversation thread: the person's bubbles, Claude's replies as Markdown,
notices and error cards with Retry. `ThreadView` (ui/thread_view.py) arranges them.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.events import TurnFailed
from ui.labels import StableHints, WrappingLabel
from ui.markdown_view import MarkdownView

STOPPED = "Stopped"
INTERRUPTED = "Interrupted: this reply did not finish"


def _plain_label(text: str, object_name: str) -> WrappingLabel:
    label = WrappingLabel(text)
    label.setObjectName(object_name)
    return label


def _restyle(widget: QWidget) -> None:
    # Dynamic properties used by the style sheet only apply after a re-polish.
    widget.style().unpolish(widget)
    widget.style().polish(widget)


class UserBubble(StableHints, QWidget):
    """The person's message: plain text in a tinted bubble on the right."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bubble = QFrame()
        self.bubble.setObjectName("userBubble")
        self.label = _plain_label(text, "userText")
        inner = QVBoxLayout(self.bubble)
        inner.setContentsMargins(14, 9, 14, 9)
        inner.addWidget(self.label)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addStretch(1)
        row.addWidget(self.bubble)

    def resizeEvent(self, event: QResizeEvent) -> None:
        # As wide as the text needs, at most 80% of the column; the label wraps inside.
        metrics = QFontMetrics(self.label.font())
        natural = max(
            (metrics.horizontalAdvance(line) for line in self.label.text().splitlines()),
            default=0,
        )
        width = min(natural + 28 + 4, max(120, int(event.size().width() * 0.8)))
        if self.bubble.width() != width:
            self.bubble.setFixedWidth(width)
        super().resizeEvent(event)

    def plain_text(self) -> str:
        return self.label.text()


class AssistantMessage(StableHints, QWidget):
    """One reply from Claude: Markdown, plus a marker if it was stopped or cut off."""

    def __init__(self, base_pt: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grows_in_place()
        self.body = MarkdownView(base_pt=base_pt)
        self.marker = QLabel()
        self.marker.setObjectName("messageMarker")
        self.marker.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.body)
        layout.addWidget(self.marker)

    def mark(self, status: str) -> None:
        """Show how the reply ended when it did not complete ('stopped' or 'failed')."""
        if status == "complete":
            return
        self.marker.setText(f"■ {STOPPED}" if status == "stopped" else f"⚠ {INTERRUPTED}")
        self.marker.setProperty("status", status)
        _restyle(self.marker)
        self.marker.show()

    @property
    def status(self) -> str:
        return str(self.marker.property("status") or "complete")

    def plain_text(self) -> str:
        text = self.body.markdown()
        return f"{text}\n{self.marker.text()}" if self.marker.isVisibleTo(self) else text


class NoticeLine(StableHints, QFrame):
    """A one-line outcome in the thread: a notice, a warning, or where a reply was stopped."""

    def __init__(self, text: str, kind: str = "info", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noticeLine")
        self.setProperty("kind", kind)
        self.label = _plain_label(text, "noticeText")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 7, 12, 7)
        layout.addWidget(self.label)

    def plain_text(self) -> str:
        return self.label.text()


class ErrorCard(StableHints, QFrame):
    """A failed turn: what went wrong, what to do, and Retry / Open Settings."""

    retry_clicked = Signal()
    settings_clicked = Signal()

    def __init__(self, failure: TurnFailed, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorCard")
        self.failure = failure
        self.title = _plain_label(failure.title, "errorTitle")
        self.detail = _plain_label(failure.detail, "errorDetail")
        # Errors the person fixes in Settings (a bad key, a wrong model) are worth
        # retrying afterwards, even though retrying as-is would fail again.
        self.retry_button: QPushButton | None = None
        self.settings_button: QPushButton | None = None
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 4, 0, 0)
        if failure.retryable or failure.open_settings:
            self.retry_button = QPushButton("Retry")
            self.retry_button.setObjectName("retryButton")
            self.retry_button.clicked.connect(self._retry)
            buttons.addWidget(self.retry_button)
        if failure.open_settings:
            self.settings_button = QPushButton("Open Settings")
            self.settings_button.setObjectName("errorSettingsButton")
            self.settings_button.clicked.connect(self.settings_clicked)
            buttons.addWidget(self.settings_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.detail)
        if self.retry_button or self.settings_button:
            layout.addLayout(buttons)
        self.retried = False

    def set_retry_enabled(self, enabled: bool) -> None:
        if self.retry_button is not None and not self.retried:
            self.retry_button.setEnabled(enabled)

    def _retry(self) -> None:
        if self.retried:
            return
        self.retried = True
        if self.retry_button is not None:
            self.retry_button.setEnabled(False)
            self.retry_button.setText("Retried")
        self.retry_clicked.emit()

    def plain_text(self) -> str:
        return f"{self.title.text()}\n{self.detail.text()}"


STYLE = """
#userBubble { background: $bubble; border-radius: 14px; }
#userText { color: $bubble_text; }
#messageMarker { color: $text_faint; font-style: italic; }
#messageMarker[status="failed"] { color: $danger; }
#noticeLine { background: $raised; border: 1px solid $border_soft; border-radius: 8px; }
#noticeLine #noticeText { color: $text; }
#noticeLine[kind="warning"] { background: $warning_bg; border-color: $warning_border; }
#noticeLine[kind="warning"] #noticeText { color: $warning_text; }
#noticeLine[kind="stopped"] { background: transparent; border: none; }
#noticeLine[kind="stopped"] #noticeText { color: $text_faint; font-style: italic; }
#errorCard { background: $danger_bg; border: 1px solid $danger_border; border-radius: 10px; }
#errorTitle { font-weight: 600; color: $danger; }
#errorDetail { color: $text; }
#errorCard QPushButton {
    background: $surface; border: 1px solid $border; border-radius: 6px; padding: 4px 14px;
    color: $text;
}
#errorCard QPushButton:hover { background: $hover; }
#errorCard QPushButton:focus { border: 2px solid $focus; padding: 3px 13px; }
#errorCard QPushButton:disabled { color: $text_faint; }
"""
