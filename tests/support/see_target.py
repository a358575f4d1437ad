"""A PySide6 form that accessibility tests look at and act on; it reports on stdout, one JSON line each.

Run as `python -m tests.support.see_target X Y WIDTH HEIGHT [TITLE]` on an X server with a session
D-Bus and `QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1`, so Qt shows its widgets to AT-SPI. The window is
frameless and sits exactly at X, Y (global pixels); `tests/support/x11.py` starts it (`TargetApp`
with `module="tests.support.see_target"`) and reads the lines.

Widgets (local pixels): buttons "Save" (20, 20, 100, 32) and "Delete" (130, 20, 100, 32); a line
edit named "Name" (20, 70, 300, 32); a password field named "Password" (20, 120, 300, 32) holding
`SECRET`; a check box "Remember me" (20, 170, 200, 28); a list "Fruit" (350, 70, 250, 200) of
`LIST_ROWS` rows, most of them below its fold.

Lines (every one has "event" and "t", the monotonic clock when it happened; rects are global):

    {"event": "ready", "widgets": {"Save": [x, y, w, h], ...}, "window": [...]}
    {"event": "clicked", "name": "Save"}              a button was pressed (however)
    {"event": "text", "name": "Name", "text": "..."}  a line edit's text changed
    {"event": "checked", "name": "Remember me", "checked": true}
    {"event": "scrolled", "first": "Row 12"}          the list's first visible row changed
    {"event": "added", "name": "Later", "rect": [...]}   a button added on request
    {"event": "removed", "name": "Later"}
    {"event": "renamed", "name": "Save", "to": "Send"}
    {"event": "moved", "window": [...], "widgets": {...}}   where the form and its widgets are now
    {"event": "grouped", "group": "Billing", "name": "Save", "rect": [...]}   a button in a group

Commands on stdin, one a line: `add NAME DELAY_MS` adds a button NAME after DELAY_MS (below the
check box, one row further down per button); `remove NAME` removes it; `rename NAME NEW` gives
the button NAME (Save, Delete or an added one) the text NEW, in place; `move X Y` moves the
window to X, Y (global pixels); `group GROUP NAME` adds a group box titled GROUP holding a
button NAME (at (200, 290) in the window, one row of 70 further down per group).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from PySide6.QtCore import QPoint, QSocketNotifier, Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QGroupBox,
    QLineEdit,
    QListWidget,
    QPushButton,
    QWidget,
)

SECRET = "s3cret-Value-42"
LIST_ROWS = 60


def report(event: str, **fields: Any) -> None:
    line = json.dumps({"event": event, "t": time.monotonic(), **fields}, ensure_ascii=True)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def global_rect(widget: QWidget) -> list[int]:
    origin = widget.mapToGlobal(QPoint(0, 0))
    return [origin.x(), origin.y(), widget.width(), widget.height()]


class Form(QWidget):
    def __init__(self, title: str) -> None:
        super().__init__()
        self.setWindowTitle(title)
        self.setWindowFlag(Qt.WindowType.FramelessWindowHint)
        self.widgets: dict[str, QWidget] = {}
        self.added: dict[str, QPushButton] = {}
        self.groups: list[QGroupBox] = []
        for name, x in (("Save", 20), ("Delete", 130)):
            button = QPushButton(name, self)
            button.setGeometry(x, 20, 100, 32)
            button.clicked.connect(lambda _=False, n=name: report("clicked", name=n))
            self.widgets[name] = button
        for name, y, echo in (
            ("Name", 70, QLineEdit.EchoMode.Normal),
            ("Password", 120, QLineEdit.EchoMode.Password),
        ):
            field = QLineEdit(self)
            field.setAccessibleName(name)
            field.setEchoMode(echo)
            field.setGeometry(20, y, 300, 32)
            field.textChanged.connect(lambda text, n=name: report("text", name=n, text=text))
            self.widgets[name] = field
        self.widgets["Password"].blockSignals(True)
        self.widgets["Password"].setText(SECRET)  # type: ignore[attr-defined]
        self.widgets["Password"].blockSignals(False)
        check = QCheckBox("Remember me", self)
        check.setGeometry(20, 170, 200, 28)
        check.toggled.connect(lambda on: report("checked", name="Remember me", checked=on))
        self.widgets["Remember me"] = check
        rows = QListWidget(self)
        rows.setAccessibleName("Fruit")
        rows.addItems([f"Row {n}" for n in range(1, LIST_ROWS + 1)])
        rows.setGeometry(350, 70, 250, 200)
        rows.verticalScrollBar().valueChanged.connect(
            lambda value: report("scrolled", first=rows.item(value).text())
        )
        self.widgets["Fruit"] = rows

    def add(self, name: str, delay_ms: int) -> None:
        def show() -> None:
            button = QPushButton(name, self)
            button.setGeometry(20, 210 + 40 * len(self.added), 160, 32)
            button.clicked.connect(lambda: report("clicked", name=name))
            button.show()
            self.added[name] = button
            report("added", name=name, rect=global_rect(button))

        QTimer.singleShot(delay_ms, show)

    def group(self, title: str, name: str) -> None:
        box = QGroupBox(title, self)
        box.setGeometry(200, 290 + 70 * len(self.groups), 140, 60)
        button = QPushButton(name, box)
        button.setGeometry(10, 22, 120, 30)
        button.clicked.connect(lambda: report("clicked", name=name, group=title))
        box.show()
        self.groups.append(box)
        report("grouped", group=title, name=name, rect=global_rect(button))

    def remove(self, name: str) -> None:
        button = self.added.pop(name, None)
        if button is not None:
            button.hide()
            button.deleteLater()
            report("removed", name=name)

    def rename(self, name: str, new: str) -> None:
        button = self.added.get(name) or self.widgets.get(name)
        if isinstance(button, QPushButton):
            button.setText(new)
            report("renamed", name=name, to=new)


def main(argv: list[str]) -> None:
    x, y, width, height = (int(value) for value in argv[:4])
    title = argv[4] if len(argv) > 4 else "See target"
    app = QApplication([])
    form = Form(title)
    form.setGeometry(x, y, width, height)
    form.show()
    form.activateWindow()

    def command() -> None:
        line = sys.stdin.readline()
        if not line:
            notifier.setEnabled(False)
            return
        parts = line.split()
        if parts[:1] == ["add"] and len(parts) == 3:
            form.add(parts[1], int(parts[2]))
        elif parts[:1] == ["remove"] and len(parts) == 2:
            form.remove(parts[1])
        elif parts[:1] == ["rename"] and len(parts) == 3:
            form.rename(parts[1], parts[2])
        elif parts[:1] == ["group"] and len(parts) == 3:
            form.group(parts[1], parts[2])
        elif parts[:1] == ["move"] and len(parts) == 3:
            form.move(int(parts[1]), int(parts[2]))
            QTimer.singleShot(100, lambda: announce("moved"))

    notifier = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Type.Read)
    notifier.activated.connect(command)

    def announce(event: str = "ready") -> None:
        report(
            event,
            window=global_rect(form),
            widgets={name: global_rect(widget) for name, widget in form.widgets.items()},
        )

    QTimer.singleShot(200, announce)
    app.exec()


if __name__ == "__main__":
    main(sys.argv[1:])
