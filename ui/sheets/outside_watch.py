"""The window's watch for what changes outside Deskhand: permission settings another program
wrote, connectors added or changed in mcp.json. It looks at launch and every moment after,
and asks one question at a time, with the sheets of ui/sheets/outside_changes.py (loaded with
the first question: nothing needs them for the window to show).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMainWindow

from desktop.workspace import Workspace

if TYPE_CHECKING:
    from desktop.calls.sources.mcp.config import ServerEntry
    from desktop.system.settings.signed import OutsideChange
    from ui.sheets.outside_changes import OutsideChangeSheet

LOOK_EVERY_MS = 1500


class OutsideWatch(QObject):
    """Looks for outside changes at launch and every moment after, and asks, one at a time."""

    def __init__(self, workspace: Workspace, window: QMainWindow) -> None:
        super().__init__(window)
        self.workspace = workspace
        self.window = window
        self.sheet: OutsideChangeSheet | None = None
        self._left_stopped: set[tuple[str, str]] = set()  # asked this run: not asked again
        self._timer = QTimer(self)
        self._timer.setInterval(LOOK_EVERY_MS)
        self._timer.timeout.connect(self.look)
        self._timer.start()
        QTimer.singleShot(0, self, self.look)

    def look(self) -> None:
        if self.sheet is not None or not self.window.isVisible():
            return
        ws = self.workspace
        ws.live.refresh()
        change = ws.live.outside_change
        if change is None and not ws.pipeline_built():
            return  # connectors once the tools are built (right after the first paint)
        from desktop.calls.sources.mcp.approved import fingerprint
        from ui.sheets.outside_changes import connector_sheet, permissions_sheet

        if change is not None:
            self._ask(
                permissions_sheet(change, self.window),
                lambda keep, c=change: self._permissions_answered(c, keep),
            )
            return
        source = ws.toolbox.mcp
        if source is None:
            return
        source.notice_file_change()
        for name, entry in source.waiting().items():
            if (name, fingerprint(entry)) in self._left_stopped:
                continue
            changed = source.approvals.knows(name)
            sheet = connector_sheet(name, entry, changed=changed, parent=self.window)
            self._ask(sheet, lambda yes, n=name, e=entry: self._connector_answered(n, e, yes))
            return

    def _ask(self, sheet: OutsideChangeSheet, answered: object) -> None:
        self.sheet = sheet
        sheet.answered.connect(answered)
        sheet.finished.connect(self._closed)
        sheet.open()

    def _closed(self) -> None:
        self.sheet = None
        QTimer.singleShot(0, self, self.look)  # the next question, if any

    def _permissions_answered(self, change: OutsideChange, keep: bool) -> None:
        if keep:
            self.workspace.live.keep_outside(change)
        else:
            self.workspace.live.discard_outside(change)

    def _connector_answered(self, name: str, entry: ServerEntry, start: bool) -> None:
        from desktop.calls.sources.mcp.approved import fingerprint

        if not self.workspace.answer_connector(name, entry, start):
            self._left_stopped.add((name, fingerprint(entry)))

    def stop(self) -> None:
        self._timer.stop()
