"""The editor a message is written in: Enter submits, Shift+Enter breaks the line, Esc stops.

The composer under the thread writes new messages in it, and a sent message is edited in
place in it (`ui.thread.items`); files pasted or dropped on it are reported, not typed.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QImage, QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit


def local_files(data: QMimeData) -> list[Path]:
    """The local files a drag or a paste carries."""
    if not data.hasUrls():
        return []
    return [Path(url.toLocalFile()) for url in data.urls() if url.isLocalFile()]


class MessageEdit(QPlainTextEdit):
    """A plain-text editor whose Enter submits instead of breaking the line.

    Pasted or dropped files and images are reported (`files_pasted`, `image_pasted`),
    not inserted as text.
    """

    submit = Signal()
    stop = Signal()
    files_pasted = Signal(list)
    image_pasted = Signal(QImage)
    takes_files = False  # the composer's editor does; an edit in the thread does not

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        if self.takes_files and (local_files(source) or source.hasImage()):
            return True
        return super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        if self.takes_files and (files := local_files(source)):
            self.files_pasted.emit(files)
        elif self.takes_files and source.hasImage():
            image = source.imageData()
            if isinstance(image, QImage) and not image.isNull():
                self.image_pasted.emit(image)
        else:
            super().insertFromMimeData(source)

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
