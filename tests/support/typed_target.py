"""A PySide6 form whose text fields offer no AT-SPI editable text, as custom-drawn editors do.

Run as `python -m tests.support.typed_target X Y WIDTH HEIGHT` on an X server with a session
D-Bus and `QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1`. Its fields are real line edits, but each one's
accessible object is a plain `QAccessibleWidget` with the text-field role: AT-SPI lists it as a
text field with no EditableText (nor Text) interface, so the only way to fill it is to click it
and type. It reports like `see_target.py`, one JSON line each (rects are global):

    {"event": "ready", "widgets": {"Plain": [x, y, w, h], ...}, "window": [...]}
    {"event": "text", "name": "Plain", "text": "..."}   a field's text changed
    {"event": "focus", "name": "Other"}                   a field got the keyboard focus

Widgets (local pixels): "Plain" (20, 20, 300, 32) holding `PLAIN_START`; "Hidden", a password
field (20, 70, 300, 32); "Locked" (20, 120, 300, 32), which a click does not focus; "Other", a
line edit accessible as Qt makes it (20, 170, 300, 32).
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAccessible, QAccessibleInterface
from PySide6.QtWidgets import QAccessibleWidget, QApplication, QLineEdit, QWidget

from tests.support.see_target import global_rect, report

PLAIN_START = "old text"


class TypedOnly(QLineEdit):
    """A line edit that tells AT-SPI only its role, name and state: typed into, never set."""


class TypedOnlyAccessible(QAccessibleWidget):
    def __init__(self, widget: TypedOnly) -> None:
        super().__init__(widget, QAccessible.Role.EditableText, widget.objectName())
        self.field = widget

    def state(self) -> QAccessible.State:
        state = super().state()
        state.passwordEdit = self.field.echoMode() == QLineEdit.EchoMode.Password
        return state


_made: list[QAccessibleInterface] = []  # Qt keeps the interfaces; Python must keep them alive


def factory(key: str, obj: QObject) -> QAccessibleInterface | None:
    if isinstance(obj, TypedOnly):
        made = TypedOnlyAccessible(obj)
        _made.append(made)
        return made
    return None


class Form(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("Typed target")
        self.widgets: dict[str, QWidget] = {}
        for name, y in (("Plain", 20), ("Hidden", 70), ("Locked", 120)):
            field = TypedOnly(self)
            field.setObjectName(name)
            field.setGeometry(20, y, 300, 32)
            self.widgets[name] = field
        self.widgets["Hidden"].setEchoMode(QLineEdit.EchoMode.Password)  # type: ignore[attr-defined]
        self.widgets["Locked"].setFocusPolicy(Qt.FocusPolicy.NoFocus)
        other = QLineEdit(self)  # accessible as Qt makes it
        other.setObjectName("Other")
        other.setAccessibleName("Other")
        other.setGeometry(20, 170, 300, 32)
        self.widgets["Other"] = other
        self.widgets["Plain"].setText(PLAIN_START)  # type: ignore[attr-defined]
        for name, widget in self.widgets.items():
            widget.textChanged.connect(  # type: ignore[attr-defined]
                lambda text, n=name: report("text", name=n, text=text)
            )


def main(argv: list[str]) -> None:
    x, y, width, height = (int(value) for value in argv[:4])
    QAccessible.installFactory(factory)
    app = QApplication([])
    app.focusChanged.connect(
        lambda _old, new: report("focus", name=new.objectName() if new is not None else "")
    )
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
