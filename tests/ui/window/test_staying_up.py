"""Staying up for scheduled routines, in the real window (offscreen, a clock the test moves):
with a routine scheduled, closing the window keeps Deskhand running (the tray's line says how
many are scheduled), and Quit asks first, naming the next run, Cancel the default; with
nothing scheduled, closing and Quit behave as before. Settings → General's Open at login
installs and removes the autostart entry."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QCheckBox, QDialogButtonBox, QLabel, QMessageBox

from desktop.routines.schedules.times import daily
from desktop.system import autostart
from tests.support.model_server import ScriptedModelServer
from tests.support.routines import NAME, record
from tests.support.schedule_clock import BERLIN, use_clock
from tests.support.window import settle
from ui.settings.dialog import SettingsDialog
from ui.settings.general import GeneralPage
from ui.window.main_window import MainWindow

MONDAY_0900 = datetime(2026, 12, 7, 9, 0, tzinfo=BERLIN)


def schedule(qtbot, aloop, window: MainWindow, model_server: ScriptedModelServer) -> None:  # type: ignore[no-untyped-def]
    """Record the routine and schedule it daily at 08:00, approved on its sheet."""
    record(qtbot, aloop, window, model_server)
    scheduler = window.workspace.scheduler
    use_clock(window.workspace, MONDAY_0900)
    setting = aloop.create_task(scheduler.set(NAME, daily("08:00", MONDAY_0900)))
    settle(aloop, lambda: window.approval_sheet is not None, "the schedule's sheet")
    window.approval_sheet.approve.click()  # type: ignore[union-attr]
    aloop.run_until_complete(setting)


def test_closing_with_a_schedule_keeps_deskhand_up_and_quit_asks_naming_the_next_run(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    window: MainWindow,
    model_server: ScriptedModelServer,
) -> None:
    schedule(qtbot, aloop, window, model_server)
    assert not window.close()  # the close is refused: Deskhand stays
    tray = window.tray
    assert tray.scheduled_action.text() == "1 routine scheduled"
    assert tray.scheduled_action.isVisible() and not tray.scheduled_action.isEnabled()
    assert tray.icon.toolTip() == "Deskhand — 1 routine scheduled"
    # No tray here (offscreen): the window waits minimized rather than out of reach.
    assert tray.icon.isVisible() or window.isMinimized()
    assert not tray.icon.isVisible() or window.isHidden()

    # Quit (the tray's or the menu's) asks, naming the next run; Cancel is the default.
    tray.quit.emit()
    box = window.staying_up.question
    assert box is not None and box.isVisible()
    assert box.text() == f"Quit Deskhand? “{NAME}” is next due Tue 08:00."
    assert box.informativeText() == "Scheduled routines run only while Deskhand is running."
    cancel = box.button(QMessageBox.StandardButton.Cancel)
    assert box.defaultButton() is cancel and box.escapeButton() is cancel
    assert window.isVisible() and not window.isMinimized()  # brought back to ask
    cancel.click()
    assert window.staying_up.question is None and window.isVisible()

    # The menu's Quit, answered Quit: the window really closes, and the app would quit.
    window.menu_actions["staying_up.quit"].trigger()
    box = window.staying_up.question
    assert box is not None
    [quit_button] = [b for b in box.buttons() if b.text() == "Quit"]
    quit_button.click()
    # Closed for good: with the last window gone Qt quits the app (desktop/app.py hears it).
    assert window.staying_up.leaving and not window.isVisible() and not window.isMinimized()
    assert QApplication.quitOnLastWindowClosed()


def test_with_nothing_scheduled_closing_and_quit_are_as_before(
    qtbot,  # type: ignore[no-untyped-def]
    window: MainWindow,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert window.workspace.scheduler.scheduled_count() == 0
    window.staying_up.quit()
    assert window.staying_up.question is None  # nothing to ask
    assert not window.isVisible()
    window.staying_up.leaving = False
    window.show()
    assert window.close() and not window.isVisible()

    # Left in the tray while a routine was scheduled, and the schedule gone since (removed
    # from the command line): the tray's Quit quits the app, having no window to close.
    quits: list[bool] = []
    monkeypatch.setattr(QApplication, "quit", lambda: quits.append(True))
    window.staying_up.leaving = False
    window.hide()
    window.tray.quit.emit()
    assert quits == [True] and window.staying_up.question is None


def save(aloop, dialog: SettingsDialog) -> None:  # type: ignore[no-untyped-def]
    """Save, pressed while the app's loop runs (as it always does in the app)."""

    async def press() -> None:
        dialog.button(QDialogButtonBox.StandardButton.Save).click()

    aloop.run_until_complete(press())


def test_open_at_login_installs_and_removes_the_autostart_entry(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    window: MainWindow,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    entry = tmp_path / "config" / "autostart" / "deskhand.desktop"

    def general() -> tuple[SettingsDialog, QCheckBox]:
        window.open_settings("general")
        dialog = window.settings_dialog
        assert isinstance(dialog, SettingsDialog)
        page = dialog.page("general")
        assert isinstance(page, GeneralPage)
        labels = [label.text() for label in page.findChildren(QLabel)]
        assert "Open at login" in labels
        assert "Start Deskhand when you log in, so scheduled routines run on time." in labels
        login = page.form.field("general.open_at_login")
        assert isinstance(login, QCheckBox)
        return dialog, login

    dialog, login = general()
    assert not login.isChecked() and not entry.exists()  # off until the person turns it on
    login.click()
    save(aloop, dialog)
    settle(aloop, lambda: entry.is_file(), "the autostart entry")
    assert entry.read_text("utf-8") == autostart.autostart_text(autostart.program_path())
    assert window.workspace.settings.general.open_at_login

    dialog, login = general()
    assert login.isChecked()
    login.click()
    save(aloop, dialog)
    settle(aloop, lambda: not entry.exists(), "the entry removed")
    assert not window.workspace.settings.general.open_at_login
