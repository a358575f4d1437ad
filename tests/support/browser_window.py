"""A PySide6 window that stands where a browser window would: its title and window class are a
browser's, its pixels are known. For the `tabs` screenshot on a real X server.

Run as `python -m tests.support.browser_window X Y WIDTH HEIGHT TITLE COLOR` with
`RESOURCE_NAME` set to the window class's instance (Chrome's is "google-chrome"). The window is
frameless at X, Y (global pixels), filled with COLOR (a name or #rrggbb), with a 4×4 red square
whose top-left pixel is 10, 10 pixels in from its top-left corner. It prints one JSON line,
`{"event": "ready", "window": [x, y, w, h], "t": ...}`, once shown.
"""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QApplication, QWidget

from tests.support.see_target import global_rect, report

MARKER = (10, 10, 4, 4)


class Page(QWidget):
    def __init__(self, color: str) -> None:
        super().__init__()
        self.color = QColor(color)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.color)
        painter.fillRect(*MARKER, QColor(255, 0, 0))
        painter.end()


def main(argv: list[str]) -> None:
    x, y, width, height = (int(value) for value in argv[:4])
    title, color = argv[4], argv[5]
    app = QApplication([])
    # The window class's second half, as Chrome's on Linux ("Google-chrome").
    instance = os.environ.get("RESOURCE_NAME", "browser")
    app.setApplicationName(instance[:1].upper() + instance[1:])
    page = Page(color)
    page.setWindowFlag(page.windowFlags().FramelessWindowHint)
    page.setWindowTitle(title)
    page.setGeometry(x, y, width, height)
    page.show()
    QTimer.singleShot(200, lambda: report("ready", window=global_rect(page)))
    app.exec()


if __name__ == "__main__":
    main(sys.argv[1:])
