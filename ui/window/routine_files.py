"""Saving and keeping routines from the window: Save as Routine…, the keep sheet, and File →
Import Routine… / Export Routine….

The window shows; `desktop/routines` decides. Save as Routine… (the chat's menu, the File menu,
the last turn's bar) opens the save sheet on the chat's draft. `ask_keep` is what
`Routines.ask_keep` awaits before a routine Deskhand did not write runs: the keep sheet over the
window, answered by the person. Import reads a file (`read_file`) and keeps it through the same
sheet; Export asks which routine and where. Every dialog is opened with `open()`, never
`exec()`, so the loop keeps running; results and failures are said on the status bar.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QInputDialog, QStatusBar, QWidget

from desktop.routines.book import RoutineError
from desktop.routines.model import Routine
from desktop.workspace import Workspace

if TYPE_CHECKING:
    from ui.sheets.routines.keep import KeepRoutineSheet
    from ui.sheets.routines.save import SaveRoutineSheet

NOTHING_TO_SAVE = "Open a chat whose task has finished to save it as a routine."
NO_ROUTINES = "There are no routines to export yet: save a finished chat as one first."
SAY_FOR_MS = 8000


class RoutineFiles:
    """The window's routine sheets and file dialogs (one of each open at a time)."""

    def __init__(
        self,
        workspace: Workspace,
        parent: QWidget,
        status: QStatusBar,
        current: Callable[[], int | None],
    ) -> None:
        self.workspace = workspace
        self.routines = workspace.routines
        self.parent = parent
        self.status = status
        self.current = current  # the chat the window shows
        self.save_sheet: SaveRoutineSheet | None = None
        self.keep_sheet: KeepRoutineSheet | None = None
        self.file_dialog: QFileDialog | None = None
        self.picker: QInputDialog | None = None

    # -- saving ---------------------------------------------------------------------------

    def save_current(self) -> SaveRoutineSheet | None:
        return self.save(self.current())

    def save(self, session_id: int | None) -> SaveRoutineSheet | None:
        """Open the save sheet on chat `session_id`'s draft (its refusal, when it has one)."""
        from ui.sheets.routines.save import SaveRoutineSheet

        if session_id is None:
            self.status.showMessage(NOTHING_TO_SAVE, SAY_FOR_MS)
            return None
        try:
            draft = self.routines.draft(session_id)
        except RoutineError as error:
            self.status.showMessage(error.message, SAY_FOR_MS)
            return None
        sheet = SaveRoutineSheet(draft, self.routines, self.parent)
        sheet.saved.connect(self._saved)
        sheet.finished.connect(lambda _result: self._closed_save(sheet))
        self.save_sheet = sheet
        sheet.open()
        return sheet

    def _saved(self, routine: Routine) -> None:
        self.status.showMessage(f"Saved the routine “{routine.name}”.", SAY_FOR_MS)

    def _closed_save(self, sheet: SaveRoutineSheet) -> None:
        if self.save_sheet is sheet:
            self.save_sheet = None

    # -- keeping --------------------------------------------------------------------------

    def show_keep(self, routine: Routine, *, replaces: bool = False) -> KeepRoutineSheet:
        """The keep sheet for `routine` over the window, opened; its `answered` says.
        `replaces`: keeping it overwrites another routine of that name (an import)."""
        from ui.sheets.routines.keep import KeepRoutineSheet

        sheet = KeepRoutineSheet(routine, self.parent, replaces=replaces)
        sheet.finished.connect(lambda _result: self._closed_keep(sheet))
        self.keep_sheet = sheet
        sheet.open()
        return sheet

    async def ask_keep(self, routine: Routine) -> bool:
        """`Routines.ask_keep`: whether the person keeps `routine`, asked on the keep sheet."""
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        sheet = self.show_keep(routine)

        def answered(keep: bool) -> None:
            if not answer.done():
                answer.set_result(keep)

        sheet.answered.connect(answered)
        try:
            return await answer
        finally:
            if not answer.done() or answer.cancelled():
                sheet.reject()  # the run was given up while the sheet was open

    def _closed_keep(self, sheet: KeepRoutineSheet) -> None:
        if self.keep_sheet is sheet:
            self.keep_sheet = None

    # -- import and export ------------------------------------------------------------------

    def import_routine(self) -> QFileDialog:
        """File → Import Routine…: pick a .json file, then the keep sheet."""
        dialog = QFileDialog(self.parent, "Import routine", _documents())
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilter("Routines (*.json)")
        dialog.fileSelected.connect(lambda path: self.read(Path(path)))
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def read(self, path: Path) -> KeepRoutineSheet | None:
        """The routine in `path` on the keep sheet; Keep saves it here, signed."""
        try:
            routine = self.routines.read_file(path)
        except RoutineError as error:
            self.status.showMessage(error.message, SAY_FOR_MS)
            return None
        replaces = any(entry.name == routine.name for entry in self.routines.entries())
        sheet = self.show_keep(routine, replaces=replaces)
        sheet.answered.connect(lambda keep: self._imported(routine) if keep else None)
        return sheet

    def _imported(self, routine: Routine) -> None:
        try:
            kept = self.routines.keep(routine)
        except RoutineError as error:
            self.status.showMessage(error.message, SAY_FOR_MS)
            return
        self.status.showMessage(f"Kept the routine “{kept.name}”.", SAY_FOR_MS)

    def export_routine(self) -> QInputDialog | None:
        """File → Export Routine…: which routine (a list), then where."""
        names = [entry.name for entry in self.routines.entries() if entry.routine is not None]
        if not names:
            self.status.showMessage(NO_ROUTINES, SAY_FOR_MS)
            return None
        picker = QInputDialog(self.parent)
        picker.setWindowTitle("Export routine")
        picker.setLabelText("Routine to export:")
        picker.setComboBoxItems(names)
        picker.setComboBoxEditable(False)
        picker.textValueSelected.connect(self.choose_path)
        self.picker = picker
        picker.open()
        return picker

    def choose_path(self, name: str) -> QFileDialog:
        dialog = QFileDialog(
            self.parent, "Export routine", str(Path(_documents()) / f"{name}.json")
        )
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter("Routines (*.json)")
        dialog.setDefaultSuffix("json")
        dialog.fileSelected.connect(lambda path: self.export(name, Path(path)))
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def export(self, name: str, destination: Path) -> bool:
        try:
            written = self.routines.export(name, destination)
        except RoutineError as error:
            self.status.showMessage(error.message, SAY_FOR_MS)
            return False
        except OSError as exc:
            why = exc.strerror or "the folder is not writable"
            self.status.showMessage(f"Could not export to {destination}: {why}.", SAY_FOR_MS)
            return False
        self.status.showMessage(f"Exported the routine “{name}” to {written}", SAY_FOR_MS)
        return True


def _documents() -> str:
    return QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
