"""A PySide6 window that screen tests act on: it reports on stdout what reached it, one JSON line each.

Run as `python -m tests.support.screen_target X Y WIDTH HEIGHT [MARKER_X MARKER_Y]` on an X
server (`QT_QPA_PLATFORM=xcb`). The window is frameless and sits exactly at X, Y (global pixels),
so tests know where every part of it is; `tests/support/x11.py` starts it and reads the lines.

Inside the window (local pixels): a "Press me" button at (20, 20, 120, 36), a line edit at
(160, 20, 360, 36), and below y = 70 a canvas that reports presses, releases, moves while a button
is held, wheel notches and keys. With MARKER_X MARKER_Y (global), the canvas paints a 4×4 red
square whose top-left pixel is there and everything else white, so a screenshot can find it.

Lines (every one has "event" and "t", the monotonic clock when it happened; points are global):

    {"event": "ready", "button": [x, y, w, h], "field": [...], "canvas": [...], "window": [...]}
    {"event": "clicked"}                                  the button was clicked
    {"event": "text", "text": "..."}                      the line edit's text changed
    {"event": "submitted", "text": "..."}                 Return was pressed in the line edit
    {"event": "press" | "release", "x", "y", "button": "left", "modifiers": ["ctrl", ...],
     "double": bool}
    {"event": "move", "x", "y", "buttons": ["left"]}      a move with a button held (a drag)
    {"event": "wheel", "x", "y", "dx", "dy"}              notches; dy > 0 is up, dx > 0 is left
    {"event": "key", "key": "Return", "text": "...", "modifiers": [...]}
    {"event": "focus", "widget": "button" | "field" | "canvas" | ""}   the keyboard focus moved
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QWheelEvent
from PySide6.QtWidgets import QApplication, QLineEdit, QPushButton, QWidget

MARKER_SIZE = 4
BUTTONS = {
    Qt.MouseButton.LeftButton: "left",
    Qt.MouseButton.RightButton: "right",
    Qt.MouseButton.MiddleButton: "middle",
}
MODIFIERS = {
    Qt.KeyboardModifier.ControlModifier: "ctrl",
    Qt.KeyboardModifier.ShiftModifier: "shift",
    Qt.KeyboardModifier.AltModifier: "alt",
    Qt.KeyboardModifier.MetaModifier: "super",
}


def report(event: str, **fields: Any) -> None:
    line = json.dumps({"event": event, "t": time.monotonic(), **fields}, ensure_ascii=True)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def modifiers(held: Qt.KeyboardModifier) -> list[str]:
    return [name for flag, name in MODIFIERS.items() if held & flag]


def global_rect(widget: QWidget) -> list[int]:
    origin = widget.mapToGlobal(QPoint(0, 0))
    return [origin.x(), origin.y(), widget.width(), widget.height()]


class Canvas(QWidget):
    """Reports the pointer and keys; paints the marker."""

    def __init__(self, parent: QWidget, marker: QPoint | None) -> None:
        super().__init__(parent)
        self.marker = marker
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(False)  # moves are reported only while a button is held

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor("white"))
        if self.marker is not None:
            local = self.mapFromGlobal(self.marker)
            painter.fillRect(
                QRect(local.x(), local.y(), MARKER_SIZE, MARKER_SIZE), QColor(255, 0, 0)
            )
        painter.end()

    def _point(self, event: QMouseEvent | QWheelEvent) -> dict[str, int]:
        point = event.globalPosition().toPoint()
        return {"x": point.x(), "y": point.y()}

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.setFocus()
        report(
            "press",
            **self._point(event),
            button=BUTTONS.get(event.button(), "other"),
            modifiers=modifiers(event.modifiers()),
            double=False,
        )

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        report(
            "press",
            **self._point(event),
            button=BUTTONS.get(event.button(), "other"),
            modifiers=modifiers(event.modifiers()),
            double=True,
        )

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        report(
            "release",
            **self._point(event),
            button=BUTTONS.get(event.button(), "other"),
            modifiers=modifiers(event.modifiers()),
        )

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        held = [name for flag, name in BUTTONS.items() if event.buttons() & flag]
        report("move", **self._point(event), buttons=held)

    def wheelEvent(self, event: QWheelEvent) -> None:
        delta = event.angleDelta()
        report("wheel", **self._point(event), dx=delta.x() / 120, dy=delta.y() / 120)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        name = Qt.Key(event.key()).name.removeprefix("Key_")
        report("key", key=name, text=event.text(), modifiers=modifiers(event.modifiers()))


def main(argv: list[str]) -> None:
    x, y, width, height = (int(value) for value in argv[:4])
    marker = QPoint(int(argv[4]), int(argv[5])) if len(argv) >= 6 else None
    app = QApplication([])
    window = QWidget()
    window.setWindowTitle("Screen target")
    window.setWindowFlag(Qt.WindowType.FramelessWindowHint)
    window.setGeometry(x, y, width, height)

    button = QPushButton("Press me", window)
    button.setGeometry(20, 20, 120, 36)
    button.clicked.connect(lambda: report("clicked"))
    field = QLineEdit(window)
    field.setGeometry(160, 20, 360, 36)
    field.textChanged.connect(lambda text: report("text", text=text))
    field.returnPressed.connect(lambda: report("submitted", text=field.text()))
    canvas = Canvas(window, marker)
    canvas.setGeometry(0, 70, width, height - 70)

    button.setObjectName("button")
    field.setObjectName("field")
    canvas.setObjectName("canvas")
    app.focusChanged.connect(
        lambda old, new: report("focus", widget=new.objectName() if new is not None else "")
    )

    window.show()
    window.activateWindow()

    def announce() -> None:
        report(
            "ready",
            window=global_rect(window),
            button=global_rect(button),
            field=global_rect(field),
            canvas=global_rect(canvas),
        )

    # After the first paint, so a screenshot taken on "ready" shows the window.
    QTimer.singleShot(200, announce)
    app.exec()


if __name__ == "__main__":
    main(sys.argv[1:])
