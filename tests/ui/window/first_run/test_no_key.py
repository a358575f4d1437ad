"""First run without an API key: Settings opens on the Model page with a welcome."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from desktop.workspace import Workspace
from tests.support.waiting import wait_until
from ui.settings import SettingsDialog
from ui.sheets.browser_download import BrowserDownloadDialog
from ui.window.main_window import MainWindow


def test_first_run_without_a_key_opens_settings_with_a_welcome(
    qtbot, aloop, data_dir: Path, no_api_env: None
) -> None:  # type: ignore[no-untyped-def]
    workspace = Workspace.open(data_dir)
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    aloop.run_until_complete(
        wait_until(lambda: window.settings_dialog is not None, what="settings")
    )
    dialog = window.settings_dialog
    assert isinstance(dialog, SettingsDialog) and dialog.isVisible()
    assert dialog.welcome is not None and "Anthropic API key" in dialog.welcome.text()
    assert "Claude can act for you" in dialog.welcome.text()
    assert dialog.page("model").isVisible()  # the Model page is the one shown
    assert dialog.welcome.isVisible()
    dialog.select_page("permissions")  # the welcome is about the key: it stays on its page
    assert not dialog.welcome.isVisible()
    dialog.select_page("model")
    assert dialog.welcome.isVisible()
    # The dialog is big enough for the Model page with the welcome, on a laptop screen.
    assert dialog.width() >= 1000 and dialog.height() >= 700
    workspace.store.close()


def test_with_a_key_nothing_opens(qtbot, aloop, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    aloop.run_until_complete(window.first_run_check())
    assert window.settings_dialog is None


def test_without_a_browser_a_banner_offers_the_download(
    qtbot, aloop, data_dir: Path, api_env
) -> None:  # type: ignore[no-untyped-def]
    workspace = Workspace.open(data_dir)
    settings = workspace.settings.model_copy(deep=True)
    settings.browser.executable_path = str(data_dir / "no-such-browser")
    workspace.live.apply(settings)
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    banner = window.browser_offer.banner
    assert banner is not None and "none was found" in banner.label.text()
    button = banner.findChild(QPushButton, "browserDownloadButton")
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = window.browser_offer.dialog
    assert isinstance(dialog, BrowserDownloadDialog)
    aloop.run_until_complete(wait_until(dialog.isVisible, what="the download offer"))
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)  # "Not now"
    assert aloop.run_until_complete(window.browser_offer.task) is False
    workspace.store.close()
