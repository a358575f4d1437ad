"""Attachments as the person sees them: chips in the composer, and inline in a sent message.

An image shows as a thumbnail that opens the viewer; a PDF or a text file as a chip
with its name and size that opens the kept copy in the system's app for it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QImageReader, QMouseEvent, QPixmap
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.attachments import Attachment
from ui.thread.image_viewer import ImageThumbnail, ImageViewer

CHIP_THUMB = QSize(36, 36)
KIND_BADGE = {"image": "IMG", "pdf": "PDF", "text": "TXT"}


def size_text(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


def describe(attachment: Attachment) -> str:
    """The small print under a chip's name: kind and size."""
    kind = {"image": "Image", "pdf": "PDF", "text": "Text"}[attachment.kind]
    if attachment.kind == "image" and attachment.width:
        return f"{kind} · {attachment.width}×{attachment.height}"
    return f"{kind} · {size_text(attachment.size)}"


def open_file(path: str) -> None:
    QDesktopServices.openUrl(QUrl.fromLocalFile(path))


def _small_thumbnail(path: str) -> QPixmap:
    reader = QImageReader(path)
    size = reader.size()
    if size.isValid():
        reader.setScaledSize(size.scaled(CHIP_THUMB, Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    return QPixmap.fromImage(image) if not image.isNull() else QPixmap()


class FileChip(QFrame):
    """A file as a chip: icon or tiny thumbnail, name, small print; clicking opens it."""

    clicked = Signal()

    def __init__(self, name: str, detail: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentChip")
        self.icon = QLabel()
        self.icon.setObjectName("attachmentIcon")
        self.icon.setFixedSize(CHIP_THUMB)
        self.icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.name = QLabel(name)
        self.name.setObjectName("attachmentName")
        self.name.setToolTip(name)
        self.name.setMaximumWidth(180)
        self.detail = QLabel(detail)
        self.detail.setObjectName("attachmentDetail")
        texts = QWidget()
        lines = QVBoxLayout(texts)
        lines.setContentsMargins(0, 0, 0, 0)
        lines.setSpacing(0)
        lines.addWidget(self.name)
        lines.addWidget(self.detail)
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(6, 4, 6, 4)
        self.row.setSpacing(8)
        self.row.addWidget(self.icon)
        self.row.addWidget(texts)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.set_name(name)

    def set_name(self, name: str) -> None:
        metrics = self.name.fontMetrics()
        self.name.setText(metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, 180))

    def show_attachment(self, attachment: Attachment) -> None:
        if attachment.kind == "image":
            pixmap = _small_thumbnail(attachment.path)
            if not pixmap.isNull():
                self.icon.setPixmap(pixmap)
                self._badge(False)
                return
        self.icon.setText(KIND_BADGE[attachment.kind])
        self._badge(True)

    def _badge(self, shown: bool) -> None:
        self.icon.setProperty("badge", shown)
        self.icon.style().unpolish(self.icon)
        self.icon.style().polish(self.icon)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
            event.position().toPoint()
        ):
            self.clicked.emit()
        super().mouseReleaseEvent(event)


class AttachmentStrip(QWidget):
    """The attachments of a sent message: image thumbnails, then file chips."""

    def __init__(self, attachments: list[Attachment], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentStrip")
        self.attachments = attachments
        self.thumbnails: list[ImageThumbnail] = []
        self.chips: list[FileChip] = []
        self._viewers: list[ImageViewer] = []
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addStretch(1)
        for attachment in attachments:
            if attachment.kind == "image" and Path(attachment.path).is_file():
                thumbnail = ImageThumbnail(attachment.path)
                thumbnail.setToolTip(f"{attachment.name} — click to open")
                thumbnail.opened.connect(self.open_image)
                self.thumbnails.append(thumbnail)
                row.addWidget(thumbnail, 0, Qt.AlignmentFlag.AlignBottom)
            else:
                chip = FileChip(attachment.name, describe(attachment))
                chip.show_attachment(attachment)
                chip.setCursor(Qt.CursorShape.PointingHandCursor)
                chip.setToolTip(f"{attachment.name} — click to open")
                chip.clicked.connect(lambda path=attachment.path: open_file(path))
                self.chips.append(chip)
                row.addWidget(chip, 0, Qt.AlignmentFlag.AlignBottom)

    def open_image(self, path: str) -> ImageViewer:
        viewer = ImageViewer(path, self.window())
        viewer.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._viewers = [v for v in self._viewers if v.isVisible()] + [viewer]
        viewer.open()
        return viewer

    def names(self) -> list[str]:
        return [attachment.name for attachment in self.attachments]


class PendingChip(FileChip):
    """An attachment in the composer: being prepared, ready, or refused (with why)."""

    remove_clicked = Signal()

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(name, "Preparing…", parent)
        self.attachment: Attachment | None = None
        self.error = ""
        self.icon.setText("…")
        self._badge(True)
        self.remove = QToolButton()
        self.remove.setObjectName("attachmentRemove")
        self.remove.setText("✕")
        self.remove.setToolTip(f"Remove {name}")
        self.remove.setAutoRaise(True)
        self.remove.clicked.connect(self.remove_clicked)
        self.row.addWidget(self.remove, 0, Qt.AlignmentFlag.AlignTop)

    @property
    def ready(self) -> bool:
        return self.attachment is not None

    def set_ready(self, attachment: Attachment) -> None:
        self.attachment = attachment
        self.detail.setText(describe(attachment))
        self.show_attachment(attachment)

    def set_failed(self, message: str) -> None:
        self.error = message
        self.setProperty("failed", True)
        self.icon.setText("!")
        self.detail.setText(message.split(": ", 1)[-1])
        self.detail.setToolTip(message)
        self.style().unpolish(self)
        self.style().polish(self)


STYLE = """
#attachmentChip {
    background: palette(alternate-base); border: 1px solid palette(mid); border-radius: 8px;
}
#attachmentChip[failed="true"] { border-color: #d1242f; }
#attachmentDetail { color: palette(placeholder-text); }
#attachmentIcon[badge="true"] {
    background: palette(mid); color: palette(window-text); border-radius: 6px;
    font-size: 8pt; font-weight: 600;
}
#attachmentChip[failed="true"] #attachmentIcon { background: #d1242f; }
#attachmentRemove { border: none; padding: 0px 2px; }
#attachButton {
    border: none; border-radius: 8px; font-size: 16pt; padding: 0px 6px;
    color: palette(placeholder-text);
}
#attachButton:hover { background: palette(alternate-base); color: palette(window-text); }
#attachmentTray, #attachmentTrayArea { background: transparent; }
"""
