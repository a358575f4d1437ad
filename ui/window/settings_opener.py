"""Opening the Settings dialog from the window: one at a time, after the tools have loaded, and
on the Model page with a welcome when there is no API key yet."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import shiboken6
from PySide6.QtWidgets import QDialog, QMainWindow

from desktop.system import heavy
from desktop.workspace import Workspace

log = logging.getLogger(__name__)

SETTINGS_NEED = heavy.PIPELINE + heavy.TOOLS  # what the pages read: the toolbox and its tools


class SettingsOpener:
    """The window's Settings dialog: opens it, raises it if it is open, says when it saved."""

    def __init__(
        self, window: QMainWindow, workspace: Workspace, on_saved: Callable[[], None]
    ) -> None:
        self.window = window
        self.workspace = workspace
        self.on_saved = on_saved
        self.dialog: QDialog | None = None
        self._waiting: asyncio.Future[None] | None = None

    def open(self, page: str = "model", *, welcome: bool = False) -> None:
        """Open the dialog (non-blocking) on `page`, or bring the open one to the front."""
        if self.dialog is not None and shiboken6.isValid(self.dialog) and self.dialog.isVisible():
            self.dialog.raise_()
            self.dialog.activateWindow()
            return
        if not heavy.loaded(SETTINGS_NEED):
            # Its pages read the tools (the toolbox and what it builds), still loading behind
            # the window: open it once they are in rather than freeze the window until then.
            self.window.statusBar().showMessage("Opening Settings…", 3000)
            self._waiting = asyncio.ensure_future(self._open_when_loaded(page, welcome))
            return
        try:
            from ui.settings import SettingsDialog  # loaded when first needed
        except ModuleNotFoundError as exc:
            if exc.name != "ui.settings" and not (exc.name or "").startswith("ui.settings."):
                raise
            log.warning("the settings dialog is not available")
            self.window.statusBar().showMessage("Settings are not available in this build.", 5000)
            return
        dialog = SettingsDialog(self.workspace, self.window, page=page, welcome=welcome)
        dialog.saved.connect(lambda *_args: self.on_saved())
        self.dialog = dialog
        dialog.open()

    async def _open_when_loaded(self, page: str, welcome: bool) -> None:
        with contextlib.suppress(Exception):  # a broken install: the pages say what is missing
            await heavy.ready(SETTINGS_NEED)
        if shiboken6.isValid(self.window):
            self.open(page, welcome=welcome)

    async def first_run_check(self) -> None:
        """Without an API key nothing works: open Settings on its Model page, with a welcome.

        The key is looked up off the event loop: finding the keychain probes the system, and
        that must not freeze the window."""
        if not await self.workspace.keys.aget() and shiboken6.isValid(self.window):
            self.open("model", welcome=True)
