"""The message box under the thread: Enter sends, Shift+Enter adds a line, Esc stops.

Its button reads Send, or Stop while a reply is being written; the window decides what
sending and stopping mean, the composer only reports the person's intent. Files come
in through the attach button, by pasting, or dropped on the window (`attach_paths`);
each shows as a chip while it is prepared (by the `Attacher`, off the event loop) and
once it is ready to go.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, Protocol

import shiboken6
from PySide6.QtCore import QBuffer, QIODevice, QMimeData, Qt, Signal
from PySide6.QtGui import QImage, QImageWriter, QResizeEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.attachments import Attachment, AttachmentError
from ui.theme import FocusRing
from ui.thread.attachment_views import PendingChip
from ui.thread.message_edit import MessageEdit, local_files

MAX_VISIBLE_LINES = 8
PLACEHOLDER = "Message Claude…  (Enter to send, Shift+Enter for a new line)"
SHORT_PLACEHOLDER = "Message Claude…"
PASTED_IMAGE = "Pasted image.png"
FILE_FILTERS = [
    "Images, PDFs and text files (*.png *.jpg *.jpeg *.gif *.webp *.bmp *.pdf *.txt *.md "
    "*.csv *.json *.py *.log *.html *.xml *.yaml *.yml)",
    "All files (*)",
]


class Attacher(Protocol):
    """What prepares attachments (the conversations, in the app)."""

    async def attach_file(self, path: Path) -> Attachment: ...
    async def attach_data(self, data: bytes, name: str) -> Attachment: ...
    def discard_attachment(self, attachment: Attachment) -> None: ...


def takes_drop(data: QMimeData) -> bool:
    """Whether a drag carries what can be attached: local files, or an image."""
    return bool(local_files(data)) or data.hasImage()


def png_bytes(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    QImageWriter(buffer, b"png").write(image)
    return bytes(buffer.data().data())


class Composer(QFrame):
    """Editor, attachment chips, Attach and Send/Stop; emits `submitted(text)` (the ready
    attachments are in `attachments()`) and `stop_requested()`."""

    submitted = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None, attacher: Attacher | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.attacher = attacher
        self.editor = MessageEdit()
        self.editor.setObjectName("composerEdit")
        self.editor.takes_files = attacher is not None
        self.editor.setPlaceholderText(PLACEHOLDER)
        self.editor.setTabChangesFocus(True)
        self.editor.setFrameShape(QFrame.Shape.NoFrame)
        self.editor.submit.connect(self._submit)
        self.editor.stop.connect(self._stop)
        self.editor.files_pasted.connect(self.attach_paths)
        self.editor.image_pasted.connect(self.attach_image)
        self.editor.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self.attach_button = QToolButton()
        self.attach_button.setObjectName("attachButton")
        self.attach_button.setText("＋")
        self.attach_button.setToolTip("Attach images, PDFs or text files")
        self.attach_button.setAutoRaise(True)
        self.attach_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.attach_button.clicked.connect(self.choose_files)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("sendButton")
        self.send_button.setProperty("running", False)
        self.send_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.send_button.clicked.connect(self._button_clicked)
        self.running = False
        self.chips: list[PendingChip] = []
        self.file_dialog: QFileDialog | None = None
        self._tasks: set[asyncio.Future[None]] = set()

        self.tray = QWidget()
        self.tray.setObjectName("attachmentTray")
        self._tray_row = QHBoxLayout(self.tray)
        self._tray_row.setContentsMargins(0, 0, 0, 0)
        self._tray_row.setSpacing(6)
        self._tray_row.addStretch(1)
        self.tray_area = QScrollArea()
        self.tray_area.setObjectName("attachmentTrayArea")
        self.tray_area.setViewport(QWidget())  # made here: see ui/thread/column.py
        self.tray_area.setWidget(self.tray)
        self.tray_area.setWidgetResizable(True)
        self.tray_area.setFrameShape(QFrame.Shape.NoFrame)
        self.tray_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tray_area.viewport().setAutoFillBackground(False)  # the composer's own shows
        self.tray_area.hide()

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        row.addWidget(self.attach_button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.editor, 1)
        row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        layout.addWidget(self.tray_area)
        layout.addLayout(row)
        # Only now, inside the composer: shown while it had no parent, the button would open
        # as a window of its own (a flash at launch, and ~10 ms of the window's start).
        self.attach_button.setVisible(attacher is not None)
        FocusRing(self, self.editor)
        self._fit_height()

    def text(self) -> str:
        return self.editor.toPlainText()

    def clear(self) -> None:
        """After sending: the text and the chips go (the files went with the message)."""
        self.editor.clear()
        for chip in list(self.chips):
            self._drop_chip(chip)

    # -- attachments --------------------------------------------------------------

    def attachments(self) -> list[Attachment]:
        """The attachments ready to send, in the order they were attached."""
        return [chip.attachment for chip in self.chips if chip.attachment is not None]

    @property
    def preparing(self) -> bool:
        return any(not chip.ready and not chip.error for chip in self.chips)

    def choose_files(self) -> None:
        dialog = QFileDialog(self, "Attach files")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setNameFilters(FILE_FILTERS)
        dialog.filesSelected.connect(lambda files: self.attach_paths([Path(f) for f in files]))
        self.file_dialog = dialog
        dialog.open()

    def attach_paths(self, paths: Sequence[Path]) -> None:
        if self.attacher is None:
            return
        for path in paths:
            self._prepare(path.name, self.attacher.attach_file(path))

    def attach_dropped(self, data: QMimeData) -> bool:
        """Attach what was dropped on the window (files, else an image); False for nothing."""
        if files := local_files(data):
            self.attach_paths(files)
        elif data.hasImage():
            self.editor.image_pasted.emit(data.imageData())
        else:
            return False
        return True

    def attach_image(self, image: QImage) -> None:
        if self.attacher is not None:
            self._prepare(PASTED_IMAGE, self.attacher.attach_data(png_bytes(image), PASTED_IMAGE))

    def _prepare(self, name: str, preparing: Coroutine[Any, Any, Attachment]) -> None:
        chip = PendingChip(name)
        chip.remove_clicked.connect(lambda: self.remove_chip(chip))
        self.chips.append(chip)
        self._tray_row.insertWidget(self._tray_row.count() - 1, chip)
        self.tray_area.show()
        self._fit_tray()
        task = asyncio.ensure_future(self._finish(chip, preparing))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _finish(self, chip: PendingChip, preparing: Coroutine[Any, Any, Attachment]) -> None:
        try:
            attachment = await preparing
        except AttachmentError as problem:
            if shiboken6.isValid(chip):
                chip.set_failed(str(problem))
            return
        if not shiboken6.isValid(chip) or chip not in self.chips:
            if self.attacher is not None:
                self.attacher.discard_attachment(attachment)  # removed while it was prepared
            return
        chip.set_ready(attachment)

    def remove_chip(self, chip: PendingChip) -> None:
        if chip.attachment is not None and self.attacher is not None:
            self.attacher.discard_attachment(chip.attachment)
        self._drop_chip(chip)

    def _drop_chip(self, chip: PendingChip) -> None:
        if chip in self.chips:
            self.chips.remove(chip)
        self._tray_row.removeWidget(chip)
        chip.deleteLater()
        self.tray_area.setVisible(bool(self.chips))
        self._fit_tray()

    def _fit_tray(self) -> None:
        bar = self.tray_area.horizontalScrollBar().sizeHint().height()
        self.tray_area.setFixedHeight(self.tray.sizeHint().height() + bar)

    def set_running(self, running: bool) -> None:
        """While a reply runs the button stops it, and Enter does not send."""
        self.running = running
        self.send_button.setText("Stop" if running else "Send")
        self.send_button.setToolTip("Stop the reply (Esc)" if running else "Send (Enter)")
        if self.send_button.property("running") != running:
            # Styled again for the new property only when it changes (at start it does not:
            # Qt's style object stays out of the way of the window's first picture).
            self.send_button.setProperty("running", running)
            self.send_button.style().unpolish(self.send_button)
            self.send_button.style().polish(self.send_button)

    def _submit(self) -> None:
        if self.running or self.preparing:
            return  # a file still being read goes with the message once it is ready
        if self.text().strip() or self.attachments():
            self.submitted.emit(self.text())

    def _stop(self) -> None:
        if self.running:
            self.stop_requested.emit()

    def _button_clicked(self) -> None:
        if self.running:
            self.stop_requested.emit()
        else:
            self._submit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # A narrow window gets the short hint rather than one cut off mid-word.
        fits = self.editor.fontMetrics().horizontalAdvance(PLACEHOLDER) + 16 < self.editor.width()
        wanted = PLACEHOLDER if fits else SHORT_PLACEHOLDER
        if self.editor.placeholderText() != wanted:
            self.editor.setPlaceholderText(wanted)

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
