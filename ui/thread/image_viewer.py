"""Images in the thread: lazily decoded thumbnails, and a viewer with zoom, fit, save as and copy.

A thumbnail decodes its file only when it is first painted (scrolled into view), and only
at thumbnail size (QImageReader.setScaledSize), so a thread with hundreds of screenshots
opens fast and holds only the ones that were seen.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import (
    QGuiApplication,
    QImage,
    QImageReader,
    QKeySequence,
    QMouseEvent,
    QPaintEvent,
    QPixmap,
    QResizeEvent,
    QShortcut,
)
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

THUMBNAIL = QSize(240, 160)


class ImageThumbnail(QLabel):
    """A clickable thumbnail of an image file; emits `opened(path)` when clicked."""

    opened = Signal(str)

    def __init__(self, path: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.decoded = False
        self.setObjectName("imageThumbnail")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Click to open")
        reader = QImageReader(path)
        size = reader.size()  # reads the header only
        self.original_size = size
        self.setFixedSize(
            size.scaled(THUMBNAIL, Qt.AspectRatioMode.KeepAspectRatio)
            if size.isValid()
            else THUMBNAIL
        )

    def paintEvent(self, event: QPaintEvent) -> None:
        # Qt paints only what the scroll area shows: thumbnails below the fold stay undecoded.
        if not self.decoded:
            self._decode()
        super().paintEvent(event)

    def _decode(self) -> None:
        self.decoded = True
        reader = QImageReader(self.path)
        reader.setScaledSize(self.size())
        image = reader.read()
        if image.isNull():
            self.setText("Image missing")
            return
        self.setPixmap(QPixmap.fromImage(image))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.opened.emit(self.path)
        super().mouseReleaseEvent(event)


class ImageViewer(QDialog):
    """Shows one image at full resolution with zoom, fit to window, save as and copy."""

    def __init__(self, path: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.setWindowTitle(Path(path).name)
        self.resize(960, 680)
        self.image = QImage(path)
        self.zoom = 1.0
        self.fit = True

        self.canvas = QLabel()
        self.canvas.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.scroller = QScrollArea()
        self.scroller.setWidget(self.canvas)
        self.scroller.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.scroller.setWidgetResizable(False)

        self.zoom_label = QLabel()
        buttons: list[tuple[str, object]] = [
            ("−", self.zoom_out),
            ("+", self.zoom_in),
            ("Fit", self.fit_to_window),
            ("100%", self.actual_size),
            ("Copy", self.copy),
            ("Save As…", self.save_as),
        ]
        bar = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for text, slot in buttons:
            button = QPushButton(text)
            button.setAutoDefault(False)
            button.clicked.connect(slot)
            self.buttons[text] = button
            bar.addWidget(button)
        bar.addStretch(1)
        size = self.image.size()
        info = QLabel(f"{size.width()} × {size.height()} px")
        info.setObjectName("imageInfo")
        bar.addWidget(info)
        bar.addWidget(self.zoom_label)

        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.scroller, 1)
        QShortcut(QKeySequence.StandardKey.ZoomIn, self, self.zoom_in)
        QShortcut(QKeySequence.StandardKey.ZoomOut, self, self.zoom_out)
        QShortcut(QKeySequence.StandardKey.Copy, self, self.copy)
        QShortcut(QKeySequence.StandardKey.Save, self, self.save_as)
        self._save_dialog: QFileDialog | None = None
        self._render()

    def _fit_zoom(self) -> float:
        view = self.scroller.viewport().size()
        if self.image.isNull() or self.image.width() == 0:
            return 1.0
        return min(1.0, view.width() / self.image.width(), view.height() / self.image.height())

    def _render(self) -> None:
        if self.image.isNull():
            self.canvas.setText("This image could not be read.")
            return
        if self.fit:
            self.zoom = self._fit_zoom()
        size = self.image.size() * self.zoom
        self.canvas.setPixmap(
            QPixmap.fromImage(
                self.image.scaled(
                    size,
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.SmoothTransformation,
                )
            )
        )
        self.canvas.resize(size)
        self.zoom_label.setText(f"{round(self.zoom * 100)}%")

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.fit:
            self._render()

    def zoom_in(self) -> None:
        self.fit, self.zoom = False, min(8.0, self.zoom * 1.25)
        self._render()

    def zoom_out(self) -> None:
        self.fit, self.zoom = False, max(0.05, self.zoom / 1.25)
        self._render()

    def fit_to_window(self) -> None:
        self.fit = True
        self._render()

    def actual_size(self) -> None:
        self.fit, self.zoom = False, 1.0
        self._render()

    def copy(self) -> None:
        QGuiApplication.clipboard().setImage(self.image)

    def save_as(self) -> None:
        dialog = QFileDialog(self, "Save Image As", str(Path.home() / Path(self.path).name))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(f"Images (*{Path(self.path).suffix})")
        dialog.fileSelected.connect(self.save_to)
        self._save_dialog = dialog
        dialog.open()

    def save_to(self, target: str) -> None:
        """Writes the original file, byte for byte (not the zoomed view)."""
        if target:
            shutil.copyfile(self.path, target)


STYLE = """
#imageThumbnail { border: 1px solid $border; border-radius: 4px; background: $raised; }
#imageThumbnail:focus { border: 2px solid $focus; }
#imageInfo { color: $text_muted; }
"""
