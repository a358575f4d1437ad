"""Settings → General: the quick entry shortcut (recorded, not typed) and where it sends.

The recorder: click it, then press the chord; Esc cancels, Turn off clears it. Under it the
page says why the shortcut does not work, when it does not (another app holds it, say).
"""

from __future__ import annotations

from typing import cast

from pydantic.fields import FieldInfo
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from desktop.system.settings.shortcut import Shortcut
from desktop.workspace import Workspace
from ui.settings.form import ChoiceField, FormPage, SettingsForm

__all__ = ["GeneralPage", "ShortcutRecorder", "TargetField"]

TARGET_TITLES = {"new": "A new chat", "latest": "The latest chat"}
OFF = "Off"
RECORDING = "Press the shortcut…"


def _key_name(key: int) -> str | None:
    """Deskhand's name for a Qt key ("space", "a", "f5"), None for a modifier alone."""
    if key in (
        Qt.Key.Key_Control,
        Qt.Key.Key_Alt,
        Qt.Key.Key_Shift,
        Qt.Key.Key_Meta,
        Qt.Key.Key_Super_L,
        Qt.Key.Key_Super_R,
        Qt.Key.Key_AltGr,
        Qt.Key.Key_unknown,
    ):
        return None
    text = QKeySequence(key).toString(QKeySequence.SequenceFormat.PortableText)
    return text.lower() or None


class ShortcutRecorder(QWidget):
    """The shortcut as a button: click, press a chord, and it is recorded; or turn it off."""

    def __init__(self, _field: FieldInfo | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._value = ""
        self.recording = False
        self.button = QPushButton()
        self.button.setObjectName("shortcutRecorder")
        self.button.setMinimumWidth(180)
        self.button.setToolTip("Click, then press the keys you want")
        self.button.clicked.connect(self.start_recording)
        self.off_button = QPushButton("Turn off")
        self.off_button.setObjectName("shortcutOff")
        self.off_button.clicked.connect(lambda: self.set_field_value(""))
        self.problem = QLabel()
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.button)
        row.addWidget(self.off_button)
        row.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self._show()

    def field_value(self) -> str:
        return self._value

    def set_field_value(self, value: str) -> None:
        self._value = value
        self.recording = False
        self._show()

    def start_recording(self) -> None:
        self.recording = True
        self.button.setText(RECORDING)
        self.button.setFocus()
        self.grabKeyboard()

    def _show(self) -> None:
        shortcut = Shortcut.parse(self._value) if self._value else None
        self.button.setText(shortcut.shown() if shortcut is not None else OFF)
        self.off_button.setEnabled(shortcut is not None)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self.recording:
            super().keyPressEvent(event)
            return
        if event.key() == Qt.Key.Key_Escape and not event.modifiers():
            self.releaseKeyboard()
            self.set_field_value(self._value)  # cancelled: as it was
            return
        name = _key_name(event.key())
        if name is None:
            return  # a modifier alone: wait for the key
        modifiers = event.modifiers()
        parts = [
            part
            for part, flag in (
                ("ctrl", Qt.KeyboardModifier.ControlModifier),
                ("alt", Qt.KeyboardModifier.AltModifier),
                ("shift", Qt.KeyboardModifier.ShiftModifier),
                ("super", Qt.KeyboardModifier.MetaModifier),
            )
            if modifiers & flag
        ]
        if not parts:
            self.button.setText("Add Ctrl, Alt, Shift or Super…")
            return
        self.releaseKeyboard()
        self.set_field_value("+".join([*parts, name]))


class TargetField(ChoiceField):
    def __init__(self, _field: FieldInfo | None = None, parent: QWidget | None = None) -> None:
        super().__init__([], parent)
        for value, title in TARGET_TITLES.items():
            self.addItem(title, value)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)


class GeneralPage(FormPage):
    """The quick entry: its shortcut, whether it works here, and where it sends."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        form = SettingsForm()
        form.add_fields(
            workspace.settings.general,
            prefix="general",
            widgets={"quick_entry_shortcut": ShortcutRecorder, "quick_entry_target": TargetField},
        )
        super().__init__(form, parent)
        self.recorder = cast(ShortcutRecorder, form.field("general.quick_entry_shortcut"))
        # How the running app fares with its shortcut: taken by another app, not possible here.
        # What to do about it, not faded help text (as on the Screen page).
        self.status = QLabel(workspace.quick_entry_shortcut.problem)
        self.status.setWordWrap(True)
        self.status.setObjectName("shortcutStatus")
        self.status.setVisible(bool(self.status.text()))
        form.add_note("general.quick_entry_shortcut", self.status)
        self.layout_.addWidget(form)
        self.layout_.addStretch(1)
