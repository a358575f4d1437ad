"""A big screenshot shows as a thumbnail; the viewer zooms, fits, copies and saves the original."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage

from ui.thread.image_viewer import THUMBNAIL, ImageThumbnail, ImageViewer


def big_png(path: Path) -> Path:
    image = QImage(3000, 2000, QImage.Format.Format_RGB32)
    image.fill(QColor("#2a7ae2"))
    image.save(str(path))
    return path


def test_thumbnail_is_small_and_decoded_only_when_painted(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = big_png(tmp_path / "shot.png")
    thumb = ImageThumbnail(str(path))
    qtbot.addWidget(thumb)
    assert not thumb.decoded
    assert thumb.width() <= THUMBNAIL.width() and thumb.height() <= THUMBNAIL.height()
    assert thumb.original_size.width() == 3000
    thumb.show()
    qtbot.waitUntil(lambda: thumb.decoded)
    assert thumb.pixmap().width() <= THUMBNAIL.width()
    with qtbot.waitSignal(thumb.opened) as opened:
        qtbot.mouseClick(thumb, Qt.MouseButton.LeftButton)
    assert opened.args == [str(path)]


def test_viewer_zooms_fits_copies_and_saves_the_original(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = big_png(tmp_path / "shot.png")
    viewer = ImageViewer(str(path))
    qtbot.addWidget(viewer)
    viewer.show()
    fitted = viewer.zoom
    assert fitted < 1.0  # a 3000 px image is fitted into the window
    viewer.actual_size()
    assert viewer.canvas.width() == 3000
    viewer.zoom_out()
    assert viewer.zoom < 1.0 and viewer.zoom_label.text() == "80%"
    viewer.fit_to_window()
    view = viewer.scroller.viewport().size()
    assert viewer.canvas.width() <= view.width() and viewer.canvas.height() <= view.height()
    assert viewer.canvas.width() >= view.width() - 2 or viewer.canvas.height() >= view.height() - 2
    viewer.copy()
    assert QGuiApplication.clipboard().image().size() == viewer.image.size()
    target = tmp_path / "saved.png"
    viewer.save_to(str(target))
    assert target.read_bytes() == path.read_bytes()
