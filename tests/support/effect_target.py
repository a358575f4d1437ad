"""A PySide6 form whose controls fail or succeed in the ways an action's `Effect:` must tell apart.

Run as `python -m tests.support.effect_target X Y WIDTH HEIGHT` on an X server with a session
D-Bus and `QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1` (`TargetApp(module="tests.support.effect_target")`).
The window is frameless, titled "Effects", at exactly X, Y. It reports like `see_target.py`, one
JSON line each (rects are global):

    {"event": "ready", "widgets": {"Submit": [x, y, w, h], ...}, "window": [...]}
    {"event": "clicked", "name": "Nothing"}            a button was pressed (however)
    {"event": "text", "name": "Name", "text": "..."}   a field's text changed
    {"event": "checked", "name": "Remember me", "checked": true}

Widgets (local pixels): "Submit" (20, 20, 100, 32), disabled; "Nothing" (130, 20, 100, 32), a
button whose handler does nothing; "Ask" (240, 20, 100, 32), which opens a dialog "Save
changes?" with an "OK" button that closes it; "Keep" (350, 20, 60, 32), which shows a label
"Saved" at (20, 260); a check box "Remember me" (20, 70, 200, 28); a
line edit "Name" (20, 110, 300, 32); a line edit "Code" (20, 160, 300, 32) that keeps at most two
characters (`maxLength`); a password field "Password" (20, 210, 300, 32) holding `SECRET`; a
text area "Notes" (20, 300, 380, 60) holding `NOTES`, longer than the readers read of a value.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from tests.support.see_target import global_rect, report

SECRET = "hunter2-Value-77"
NOTES = "Long notes. " * 25  # 300 characters


class Form(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("Effects")
        self.setWindowFlag(Qt.WindowType.FramelessWindowHint)
        self.widgets: dict[str, QWidget] = {}
        for name, x, width in (("Submit", 20, 100), ("Nothing", 130, 100), ("Ask", 240, 100)):
            button = QPushButton(name, self)
            button.setGeometry(x, 20, width, 32)
            button.clicked.connect(lambda _=False, n=name: report("clicked", name=n))
            self.widgets[name] = button
        self.widgets["Submit"].setEnabled(False)
        self.widgets["Ask"].clicked.connect(self.ask)  # type: ignore[attr-defined]
        keep = QPushButton("Keep", self)
        keep.setGeometry(350, 20, 60, 32)
        keep.clicked.connect(self.keep)
        self.widgets["Keep"] = keep
        check = QCheckBox("Remember me", self)
        check.setGeometry(20, 70, 200, 28)
        check.toggled.connect(lambda on: report("checked", name="Remember me", checked=on))
        self.widgets["Remember me"] = check
        for name, y in (("Name", 110), ("Code", 160), ("Password", 210)):
            field = QLineEdit(self)
            field.setAccessibleName(name)
            field.setGeometry(20, y, 300, 32)
            field.textChanged.connect(lambda text, n=name: report("text", name=n, text=text))
            self.widgets[name] = field
        code = self.widgets["Code"]
        assert isinstance(code, QLineEdit)
        code.setMaxLength(2)
        password = self.widgets["Password"]
        assert isinstance(password, QLineEdit)
        password.setEchoMode(QLineEdit.EchoMode.Password)
        password.blockSignals(True)
        password.setText(SECRET)
        password.blockSignals(False)
        notes = QPlainTextEdit(NOTES, self)
        notes.setAccessibleName("Notes")
        notes.setGeometry(20, 300, 380, 60)
        notes.textChanged.connect(lambda: report("text", name="Notes", text=notes.toPlainText()))
        self.widgets["Notes"] = notes
        self.dialog: QDialog | None = None

    def keep(self) -> None:
        saved = QLabel("Saved", self)
        saved.setGeometry(20, 260, 200, 24)
        saved.show()

    def ask(self) -> None:
        dialog = QDialog(self)
        dialog.setWindowTitle("Save changes?")
        dialog.setGeometry(self.x() + 100, self.y() + 300, 240, 100)
        ok = QPushButton("OK", dialog)
        ok.setGeometry(70, 30, 100, 32)
        ok.clicked.connect(dialog.accept)
        dialog.show()
        self.dialog = dialog


def main(argv: list[str]) -> None:
    x, y, width, height = (int(value) for value in argv[:4])
    app = QApplication([])
    form = Form()
    form.setGeometry(x, y, width, height)
    form.show()
    form.activateWindow()

    def announce() -> None:
        report(
            "ready",
            window=global_rect(form),
            widgets={name: global_rect(widget) for name, widget in form.widgets.items()},
        )

    QTimer.singleShot(200, announce)
    app.exec()


if __name__ == "__main__":
    main(sys.argv[1:])
