"""Settings → Screen: the status Deskhand found (against a real X server and none), the two
switches, and on a Mac the permission cards that open the exact pane of System Settings."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialogButtonBox

from desktop.workspace import Workspace
from tests.support.x11 import Xvfb, xvfb_missing
from tools.screen.backends.mac_permissions import RELAUNCH_NOTE, permission
from ui.settings import SettingsDialog
from ui.settings.screen import PermissionCard, ScreenPage


@pytest.fixture(scope="module")
def xvfb() -> Iterator[Xvfb]:
    missing = xvfb_missing()
    if missing:
        pytest.skip(missing)
    with Xvfb(1280, 800) as server:
        yield server


@pytest.fixture
def no_session(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def open_page(qtbot, workspace: Workspace) -> tuple[SettingsDialog, ScreenPage]:  # type: ignore[no-untyped-def]
    dialog = SettingsDialog(workspace, page="screen")
    qtbot.addWidget(dialog)
    dialog.open()
    page = dialog.page("screen")
    assert isinstance(page, ScreenPage)
    return dialog, page


class UrlCatcher(QObject):
    """Where Qt sends the URLs the page opens, instead of the system's handler."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url.toString())


def test_a_usable_screen_says_where_and_the_switches_save(
    qtbot, aloop, workspace: Workspace, xvfb: Xvfb, no_session: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    no_session.setenv("DISPLAY", xvfb.display)
    aloop.run_until_complete(workspace.toolbox.screen.start())
    dialog, page = open_page(qtbot, workspace)
    assert page.usable
    assert page.status.text() == f"Available: X11 display {xvfb.display}."
    if sys.platform != "darwin":
        assert page.cards == []  # the permission cards are a Mac's
    enabled = page.form.field("screen.enabled")
    visualizer = page.form.field("screen.visualizer")
    assert enabled.field_value() and visualizer.field_value()  # type: ignore[attr-defined]
    visualizer.set_field_value(False)  # type: ignore[attr-defined]
    with qtbot.waitSignal(dialog.saved):
        dialog.button(QDialogButtonBox.StandardButton.Save).click()
    saved = Workspace.open(workspace.paths.root).settings.screen
    assert saved.enabled and not saved.visualizer


def test_no_display_says_why_and_what_to_do(
    qtbot, aloop, workspace: Workspace, no_session: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    aloop.run_until_complete(workspace.toolbox.screen.start())
    _dialog, page = open_page(qtbot, workspace)
    assert not page.usable
    assert page.status.text() == (
        "No graphical display was found (DISPLAY is not set). "
        "Start Deskhand from a desktop session."
    )


def test_turned_off_says_so(qtbot, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    settings = workspace.settings.model_copy(deep=True)
    settings.screen.enabled = False
    workspace.live.apply(settings)
    _dialog, page = open_page(qtbot, workspace)
    assert page.status.text().startswith("Off: Claude does not see or use the screen")


def test_mac_permissions_show_status_why_and_open_their_pane(qtbot, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    # As `ScreenControl.start` finds them on a Mac where only Accessibility was granted.
    workspace.toolbox.screen.permissions = [
        permission("screen_recording", granted=False),
        permission("accessibility", granted=True),
    ]
    catcher = UrlCatcher()
    QDesktopServices.setUrlHandler("x-apple.systempreferences", catcher, "open")
    try:
        _dialog, page = open_page(qtbot, workspace)
        recording, accessibility = page.cards
        assert isinstance(recording, PermissionCard)
        assert recording.title.text() == "Screen Recording"
        assert recording.status.text().startswith("Not allowed yet")
        assert "see your screen" in recording.why.text()
        assert accessibility.status.text() == "Allowed."
        assert "click" in accessibility.why.text() and "type" in accessibility.why.text()
        assert page.relaunch_note.text() == RELAUNCH_NOTE
        assert "restarts" in RELAUNCH_NOTE
        recording.open_button.click()
        accessibility.open_button.click()
    finally:
        QDesktopServices.unsetUrlHandler("x-apple.systempreferences")
    assert catcher.urls == [
        "x-apple.systempreferences:com.apple.preference.security?Privacy_ScreenCapture",
        "x-apple.systempreferences:com.apple.preference.security?Privacy_Accessibility",
    ]
