"""The items of a conversation thread: the person's bubbles (with their attachments, Copy and
Edit), Claude's replies as Markdown (with Copy), the last turn's Regenerate and Continue,
notices and error cards with Retry. `ThreadView` (ui/thread/view.py) arranges them.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QEnterEvent, QFontMetrics, QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.attachments import Attachment
from desktop.chat.events import TurnFailed
from ui.boxes import STRETCH, boxed
from ui.thread.attachment_views import AttachmentStrip
from ui.thread.labels import StableHints, WrappingLabel
from ui.thread.message_edit import MessageEdit
from ui.thread.text_selection import SelectionScope

STOPPED = "Stopped"
INTERRUPTED = "Interrupted: this reply did not finish"
CONTINUED = "↪ Continued"
COPIED_FOR_MS = 1500
MAX_EDIT_LINES = 12


def _plain_label(text: str, object_name: str) -> WrappingLabel:
    label = WrappingLabel(text)
    label.setObjectName(object_name)
    return label


def _restyle(widget: QWidget) -> None:
    # Dynamic properties used by the style sheet only apply after a re-polish.
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def copy_text(text: str) -> None:
    clipboard = QGuiApplication.clipboard()
    if clipboard is not None:
        clipboard.setText(text)


def action_button(text: str, tip: str, object_name: str = "messageAction") -> QToolButton:
    """A flat text button of the thread (hover actions, version arrows, Continue)."""
    button = QToolButton()
    button.setObjectName(object_name)
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    return button


class HoverActions(QWidget):
    """Small buttons that show while the pointer is over their message, in space kept for
    them, so nothing moves when they appear."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hoverActions")
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(2)
        policy = self.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.setSizePolicy(policy)
        self.hide()

    def add(self, button: QToolButton) -> QToolButton:
        self.row.addWidget(button)
        return button


class CopyButton(QToolButton):
    """Copy, which reads Copied for a moment after a click."""

    def __init__(self, tip: str, text: str = "Copy") -> None:
        super().__init__()
        self.setObjectName("messageAction")
        self.setText(text)
        self._label = text
        self.setToolTip(tip)
        self.setAutoRaise(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self._revert = QTimer(self)
        self._revert.setSingleShot(True)
        self._revert.setInterval(COPIED_FOR_MS)
        self._revert.timeout.connect(lambda: self.setText(self._label))

    def copied(self) -> None:
        self.setText("Copied")
        self._revert.start()


class UserBubble(StableHints, QWidget):
    """The person's message: its attachments, then plain text in a tinted bubble on the right.

    Hovering shows Copy and Edit; Edit turns the bubble into an editor whose Send
    emits `edit_submitted(message_id, text)` (the window resends it).
    """

    edit_submitted = Signal(int, str)

    def __init__(
        self,
        text: str,
        parent: QWidget | None = None,
        *,
        message_id: int | None = None,
        attachments: list[Attachment] | None = None,
    ) -> None:
        super().__init__(parent)
        self.message_id = message_id
        self.text = text
        self.bubble = QFrame()
        self.bubble.setObjectName("userBubble")
        self.label = _plain_label(text, "userText")
        self.editor: MessageEdit | None = None
        self._inner = QVBoxLayout(self.bubble)
        self._inner.setContentsMargins(14, 9, 14, 9)
        self._inner.addWidget(self.label)
        self.hover = HoverActions()
        self.copy_button = CopyButton("Copy this message")
        self.hover.add(self.copy_button).clicked.connect(self.copy)
        self.edit_button = self.hover.add(action_button("Edit", "Edit and send again"))
        self.edit_button.clicked.connect(self.start_edit)
        self.edit_button.setVisible(message_id is not None)
        self._editable = message_id is not None
        self.attachments = AttachmentStrip(attachments) if attachments else None
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addStretch(1)
        row.addWidget(self.hover, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.bubble)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        if self.attachments is not None:
            column.addWidget(self.attachments)
        column.addLayout(row)
        self.bubble.setVisible(bool(text.strip()))

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._fit_bubble(event.size().width())
        super().resizeEvent(event)

    def _fit_bubble(self, width: int) -> None:
        # As wide as the text needs, at most 80% of the column; the label wraps inside.
        widest = max(120, int(width * 0.8))
        if self.editor is not None:
            wanted = widest
        else:
            metrics = QFontMetrics(self.label.font())
            natural = max(
                (metrics.horizontalAdvance(line) for line in self.label.text().splitlines()),
                default=0,
            )
            wanted = min(natural + 28 + 4, widest)
        if self.bubble.width() != wanted:
            self.bubble.setFixedWidth(wanted)

    def enterEvent(self, event: QEnterEvent) -> None:
        self.hover.setVisible(self.editor is None)
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self.hover.hide()
        super().leaveEvent(event)

    def set_editable(self, editable: bool) -> None:
        """Edit is offered for a stored message while no reply runs in its chat."""
        self._editable = editable and self.message_id is not None
        self.edit_button.setVisible(self._editable)

    def copy(self) -> None:
        copy_text(self.text)
        self.copy_button.copied()

    def start_edit(self) -> None:
        if not self._editable or self.editor is not None:
            return
        self.hover.hide()
        editor = MessageEdit()
        editor.setObjectName("editEdit")
        editor.setPlainText(self.text)
        editor.setTabChangesFocus(True)
        editor.setFrameShape(QFrame.Shape.NoFrame)
        lines = max(2, min(MAX_EDIT_LINES, self.text.count("\n") + 2))
        editor.setFixedHeight(lines * editor.fontMetrics().lineSpacing() + 12)
        editor.submit.connect(self._send_edit)
        editor.stop.connect(self.cancel_edit)
        cancel = QPushButton("Cancel")
        cancel.setObjectName("editCancel")
        cancel.clicked.connect(self.cancel_edit)
        send = QPushButton("Send")
        send.setObjectName("editSend")
        send.setDefault(True)
        send.clicked.connect(self._send_edit)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(cancel)
        buttons.addWidget(send)
        self._edit_row = QWidget()
        self._edit_row.setLayout(buttons)
        buttons.setContentsMargins(0, 4, 0, 0)
        self.label.hide()
        self._inner.addWidget(editor)
        self._inner.addWidget(self._edit_row)
        self.editor = editor
        self.bubble.show()
        self._fit_bubble(self.width())
        editor.setFocus()
        editor.moveCursor(editor.textCursor().MoveOperation.End)

    def cancel_edit(self) -> None:
        if self.editor is None:
            return
        for widget in (self.editor, self._edit_row):
            self._inner.removeWidget(widget)
            widget.deleteLater()
        self.editor = None
        self.label.show()
        self.bubble.setVisible(bool(self.text.strip()))
        self._fit_bubble(self.width())

    def _send_edit(self) -> None:
        if self.editor is None or self.message_id is None:
            return
        text = self.editor.toPlainText().strip()
        if not text and self.attachments is None:
            return
        self.edit_submitted.emit(self.message_id, text)

    def plain_text(self) -> str:
        names = self.attachments.names() if self.attachments is not None else []
        return "\n".join([*names, self.label.text()] if names else [self.label.text()])


class AssistantMessage(StableHints, QWidget):
    """One reply from Claude: Markdown, plus a marker if it was stopped or cut off.

    A drag selects across all its blocks; hovering shows Copy (the reply's Markdown),
    which its text's context menu also offers.
    """

    def __init__(self, base_pt: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grows_in_place()
        self.selection_scope = SelectionScope(self)
        # The Markdown view (and its code highlighting) loads with the first reply, after the
        # window's first paint (on `heavy`'s thread: desktop/app.py), not with the window.
        from ui.thread.markdown.view import MarkdownView

        self.body = MarkdownView(base_pt=base_pt)
        self.marker = QLabel()
        self.marker.setObjectName("messageMarker")
        self.marker.hide()
        self.hover = HoverActions()
        self.copy_button = CopyButton("Copy this reply as Markdown")
        self.hover.add(self.copy_button).clicked.connect(self.copy)
        footer = boxed(QHBoxLayout(), self.hover, STRETCH, margins=(0, 0, 0, 0))
        boxed(QVBoxLayout(self), self.body, self.marker, footer, margins=(0, 0, 0, 0), spacing=6)

    def enterEvent(self, event: QEnterEvent) -> None:
        self.hover.show()
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self.hover.hide()
        super().leaveEvent(event)

    def copy(self) -> None:
        """The whole reply, as the Markdown Claude wrote."""
        copy_text(self.body.markdown().strip())
        self.copy_button.copied()

    def add_context_actions(self, menu: QMenu) -> None:
        menu.addAction("Copy Reply").triggered.connect(self.copy)

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


class TurnActions(QWidget):
    """Under the last turn of an idle chat: Regenerate, Continue when it was cut short, and
    Save as Routine… when its task finished."""

    regenerate_clicked = Signal()
    continue_clicked = Signal()
    save_routine_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("turnActions")
        self.regenerate_button = action_button(
            "↻ Regenerate", "Answer the last message again; this answer is kept as a version"
        )
        self.regenerate_button.clicked.connect(self.regenerate_clicked)
        self.continue_button = action_button(
            "→ Continue", "Let Claude go on from where the reply stopped"
        )
        self.continue_button.clicked.connect(self.continue_clicked)
        self.save_routine_button = action_button(
            "Save as Routine…", "Save this task as a routine Deskhand can do again without Claude"
        )
        self.save_routine_button.clicked.connect(self.save_routine_clicked)
        boxed(
            QHBoxLayout(self),
            self.continue_button,
            self.regenerate_button,
            self.save_routine_button,
            STRETCH,
            margins=(0, 0, 0, 0),
            spacing=4,
        )
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def set_actions(self, *, regenerate: bool, continue_: bool, routine: bool = False) -> None:
        self.regenerate_button.setVisible(regenerate)
        self.continue_button.setVisible(continue_)
        self.save_routine_button.setVisible(routine)
        self.setVisible(regenerate or continue_ or routine)

    def plain_text(self) -> str:
        buttons = (self.continue_button, self.regenerate_button, self.save_routine_button)
        shown = [b.text() for b in buttons if b.isVisibleTo(self)]
        return "  ".join(shown)


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
        layout = boxed(
            QVBoxLayout(self), self.title, self.detail, margins=(14, 10, 14, 10), spacing=4
        )
        if self.retry_button or self.settings_button:
            layout.addLayout(buttons)
        self.retried = False

    def set_retry_enabled(self, enabled: bool) -> None:
        if self.retry_button is not None and not self.retried:
            self.retry_button.setEnabled(enabled)

    @property
    def resolved(self) -> bool:
        return bool(self.property("resolved"))

    @property
    def retired(self) -> bool:
        return bool(self.property("retired"))

    def retire(self) -> None:
        """The chat went on after this error (a retry, a new message): it is history now, so
        its buttons go (Retry answers the chat as it ends, not as it was here); its words
        stay, the same live and reopened."""
        self.setProperty("retired", True)
        for button in (self.retry_button, self.settings_button):
            if button is not None:
                button.hide()

    def resolve(self, note: str) -> None:
        """What caused this error was fixed (a key saved, another model chosen): it no longer
        reads as the current state; Retry stays to send the message again."""
        if self.resolved:
            return
        self.setProperty("resolved", True)
        self.title.setText(f"✓ Fixed: {self.failure.title}")
        self.detail.setText(note)
        if self.settings_button is not None:
            self.settings_button.hide()
        _restyle(self)
        for label in (self.title, self.detail):
            _restyle(label)

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


# Newer surfaces, drawn from the palette's roles so they follow light and dark.
ACTIONS_STYLE = """
#messageAction {
    border: none; border-radius: 6px; padding: 2px 8px; color: palette(placeholder-text);
}
#messageAction:hover { background: palette(alternate-base); color: palette(window-text); }
#turnActions #messageAction { border: 1px solid palette(mid); }
#errorCard[resolved="true"] { background: palette(base); border: 1px solid palette(mid); }
#errorCard[resolved="true"] #errorTitle { color: palette(placeholder-text); }
#errorCard[resolved="true"] #errorDetail { color: palette(placeholder-text); }
#editEdit { background: transparent; }
"""
