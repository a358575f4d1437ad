"""A Qt window of about 200 accessible elements for `bench/see.py`, reporting on stdout like
`tests/support/see_target.py`: `ready`, and `added` when stdin asks `add NAME DELAY_MS`.

Five group boxes of ten rows, each row a label, a line edit, a check box and a button.
"""

from __future__ import annotations

import json
import sys
import time

from PySide6.QtCore import QSocketNotifier, Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


def report(event: str, **fields: object) -> None:
    sys.stdout.write(json.dumps({"event": event, "t": time.monotonic(), **fields}) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> None:
    x, y, width, height = (int(v) for v in argv[:4])
    app = QApplication([])
    window = QWidget()
    window.setWindowTitle("Big form")
    window.setWindowFlag(Qt.WindowType.FramelessWindowHint)
    outer = QVBoxLayout(window)
    for group in range(5):
        box = QGroupBox(f"Group {group}")
        grid = QGridLayout(box)
        for row in range(10):
            grid.addWidget(QLabel(f"Label {group}.{row}"), row, 0)
            field = QLineEdit()
            field.setAccessibleName(f"Field {group}.{row}")
            grid.addWidget(field, row, 1)
            grid.addWidget(QCheckBox(f"Check {group}.{row}"), row, 2)
            grid.addWidget(QPushButton(f"Button {group}.{row}"), row, 3)
        outer.addWidget(box)
    window.setGeometry(x, y, width, height)
    window.show()

    def add(name: str, delay_ms: int) -> None:
        def show() -> None:
            button = QPushButton(name, window)
            button.setGeometry(4, 4, 80, 24)
            button.show()
            report("added", name=name)

        QTimer.singleShot(delay_ms, show)

    def command() -> None:
        parts = sys.stdin.readline().split()
        if parts[:1] == ["add"] and len(parts) == 3:
            add(parts[1], int(parts[2]))

    notifier = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Type.Read)
    notifier.activated.connect(command)
    QTimer.singleShot(300, lambda: report("ready"))
    app.exec()


if __name__ == "__main__":
    main(sys.argv[1:])
