"""Settings → General: the quick entry shortcut is recorded from a key press, can be turned
off, is saved with where the quick entry sends, and the page says why it does not work."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from desktop.workspace import Workspace
from ui.settings import SettingsDialog
from ui.settings.general import GeneralPage


def open_page(qtbot, workspace: Workspace) -> tuple[SettingsDialog, GeneralPage]:  # type: ignore[no-untyped-def]
    dialog = SettingsDialog(workspace, page="general")
    qtbot.addWidget(dialog)
    dialog.open()
    page = dialog.page("general")
    assert isinstance(page, GeneralPage)
    return dialog, page


def test_the_shortcut_is_recorded_turned_off_and_saved(qtbot, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    dialog, page = open_page(qtbot, workspace)
    recorder = page.recorder
    assert recorder.button.text() == "Ctrl+Alt+Space"  # the default on Linux
    qtbot.mouseClick(recorder.button, Qt.MouseButton.LeftButton)
    assert recorder.button.text() == "Press the shortcut…"
    qtbot.keyClick(recorder, Qt.Key.Key_Control, Qt.KeyboardModifier.ControlModifier)
    assert recorder.recording  # a modifier alone: still waiting for the key
    qtbot.keyClick(recorder, Qt.Key.Key_K)
    assert recorder.recording and "Add Ctrl, Alt, Shift or Super" in recorder.button.text()
    qtbot.keyClick(
        recorder,
        Qt.Key.Key_K,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert not recorder.recording and recorder.button.text() == "Ctrl+Shift+K"
    target = page.form.field("general.quick_entry_target")
    target.setCurrentIndex(target.findData("latest"))  # type: ignore[attr-defined]
    dialog.button(QDialogButtonBox.StandardButton.Save).click()
    assert workspace.settings.general.quick_entry_shortcut == "ctrl+shift+k"
    assert workspace.settings.general.quick_entry_target == "latest"

    dialog, page = open_page(qtbot, workspace)
    assert page.recorder.button.text() == "Ctrl+Shift+K"
    qtbot.mouseClick(page.recorder.off_button, Qt.MouseButton.LeftButton)
    assert page.recorder.button.text() == "Off" and not page.recorder.off_button.isEnabled()
    dialog.button(QDialogButtonBox.StandardButton.Save).click()
    assert workspace.settings.general.quick_entry_shortcut == ""


def test_esc_while_recording_keeps_the_shortcut(qtbot, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    _dialog, page = open_page(qtbot, workspace)
    qtbot.mouseClick(page.recorder.button, Qt.MouseButton.LeftButton)
    qtbot.keyClick(page.recorder, Qt.Key.Key_Escape)
    assert not page.recorder.recording and page.recorder.field_value() == "ctrl+alt+space"


def test_the_page_says_why_the_shortcut_does_not_work(qtbot, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    workspace.quick_entry_shortcut.problem = (
        "Ctrl+Alt+Space is already used by another app, so it cannot open Deskhand's quick "
        "entry. Choose another shortcut in Settings → General, or free it in that app."
    )
    _dialog, page = open_page(qtbot, workspace)
    assert page.status.isVisibleTo(page)
    assert page.status.text().startswith("Ctrl+Alt+Space is already used by another app")
