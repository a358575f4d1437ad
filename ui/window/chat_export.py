"""File → Export Chat as Markdown: ask where, then write the chat with its images beside it.

The file dialog is opened with `open()`, never `exec()`, so the loop keeps running; what is
written is the same replayed transcript the thread shows (`desktop.chat.export`).
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QStatusBar, QWidget

from desktop.chat import export
from desktop.workspace import Workspace


class ChatExport:
    """Exports the window's chats; results and failures are said on its status bar."""

    def __init__(self, workspace: Workspace, parent: QWidget, status: QStatusBar) -> None:
        self.workspace = workspace
        self.parent = parent
        self.status = status
        self.dialog: QFileDialog | None = None

    def choose(self, session_id: int | None) -> None:
        """Ask where (in Documents, named after the chat), then export there."""
        session = self.workspace.store.session(session_id) if session_id is not None else None
        if session is None:
            self.status.showMessage("Send a message first: this chat is empty.", 4000)
            return
        folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        name = re.sub(r'[\\/:*?"<>|\n]+', " ", session.title).strip() or "Chat"
        dialog = QFileDialog(self.parent, "Export chat", str(Path(folder) / f"{name}.md"))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("Markdown (*.md)")
        dialog.setDefaultSuffix("md")
        dialog.fileSelected.connect(lambda path: self.write(session.id, Path(path)))
        self.dialog = dialog
        dialog.open()

    def write(self, session_id: int, target: Path) -> bool:
        """Write the chat to `target`; False (and why, on the status bar) when it cannot."""
        session = self.workspace.store.session(session_id)
        if session is None:
            return False
        try:
            export.to_markdown(session.title, self.workspace.transcript(session_id), target)
        except OSError as exc:
            self.status.showMessage(
                f"Could not export to {target}: {exc.strerror or 'the folder is not writable'}.",
                8000,
            )
            return False
        self.status.showMessage(f"Exported to {target}", 6000)
        return True
