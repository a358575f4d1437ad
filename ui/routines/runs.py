"""Running routines from the window: the sidebar's section, the form, the run's chat, the
update bar.

Run asks for the parameters when the routine has any, then `Routines.start` opens the run's
chat "▶ NAME" (the keep sheet first, for a routine changed outside Deskhand), and the window
shows it: its cards stream as in any chat, and the window's Stop stops it. A `RoutineError`
(already running, not kept, a bad value) is said in a message box. When a run in the chat on
show healed, the update bar offers its steps as the routine's update.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop.routines.book import RoutineError
from desktop.routines.model import Routine
from ui.routines.run_form import RunForm
from ui.routines.section import RoutinesSection
from ui.routines.update_bar import UpdateBar

if TYPE_CHECKING:
    from ui.window.main_window import MainWindow

CANNOT_RUN = "Couldn't run “{name}”"
CANNOT_UPDATE = "Couldn't update “{name}”"
CANNOT_REMOVE = "Couldn't remove “{name}”"


class RoutineRuns(QObject):
    """The window's routines: what the section, the quick entry and the update bar ask for."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.routines = window.workspace.routines
        self.section = RoutinesSection(self.routines)
        self.section.run_requested.connect(self.run_clicked)
        self.section.show_requested.connect(self.show_last_run)
        self.section.remove_requested.connect(self.remove)
        window.sidebar.add_section(self.section)
        self.update_bar = UpdateBar()
        self.update_bar.update_requested.connect(self.apply_update)
        self.update_bar.dismissed.connect(self._dismissed)
        window.banners.addWidget(self.update_bar)
        window.stack.currentChanged.connect(lambda _index: self._offer_update())
        self.form: RunForm | None = None
        self.error_box: QMessageBox | None = None
        self._dismissed_chats: set[int] = set()
        self._tasks: set[asyncio.Future[int | None]] = set()
        self._unsubscribe = self.routines.subscribe(self._changed)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.applicationStateChanged.connect(self._app_state)

    def _app_state(self, state: Qt.ApplicationState) -> None:
        # Files changed outside Deskhand were changed while it was in the background: the
        # section reads them again when the person comes back.
        if state == Qt.ApplicationState.ApplicationActive and shiboken6.isValid(self.section):
            self.section.refresh()

    def close(self) -> None:
        self._unsubscribe()

    def _changed(self) -> None:
        if shiboken6.isValid(self.window):
            self._offer_update()

    # -- running --------------------------------------------------------------------

    def run_clicked(self, name: str) -> None:
        """Run in the section: a running routine's chat comes up; else ask for the parameters
        (when it has any) and run it."""
        running = self.routines.running().get(name)
        if running is not None:
            self._open_chat(running)
            return
        self._keep(asyncio.ensure_future(self._ask_and_run(name)))

    async def _ask_and_run(self, name: str) -> int | None:
        try:
            routine = self.routines.load(name).routine
        except RoutineError as error:
            self.show_error(CANNOT_RUN.format(name=name), error.message)
            return None
        values: dict[str, str] = {}
        if routine.parameters:
            asked = await self.ask_values(routine)
            if asked is None:
                return None
            values = asked
        return await self.start(name, values)

    async def ask_values(self, routine: Routine) -> dict[str, str] | None:
        """The run form; the values, or None when the person cancelled."""

        def check(values: dict[str, str]) -> str:
            try:
                self.routines.values_for(routine, values)
            except RoutineError as error:
                return error.message
            return ""

        form = RunForm(routine, check, self.window)
        self.form = form
        try:
            return await form.ask()
        finally:
            self.form = None
            form.deleteLater()

    def run(self, name: str, values: dict[str, str] | None = None) -> asyncio.Future[int | None]:
        """Start `name` with `values` (defaults for the rest); its chat comes up."""
        return self._keep(asyncio.ensure_future(self.start(name, values or {})))

    async def start(self, name: str, values: dict[str, str]) -> int | None:
        """Start the run and show its chat; the chat's id, or None when it could not start
        (said in a message box)."""
        try:
            chat_id = await self.routines.start(name, values)
        except RoutineError as error:
            self.show_error(CANNOT_RUN.format(name=name), error.message)
            return None
        if shiboken6.isValid(self.window):
            self._open_chat(chat_id)
        return chat_id

    def _open_chat(self, chat_id: int) -> None:
        self.window.sessions.refresh()  # the run's chat is new: the list learns of it first
        self.window.open_session(chat_id)
        self.window.bring_to_front()

    def show_last_run(self, name: str) -> None:
        chat_id = self.routines.last_run(name)
        if chat_id is not None:
            self._open_chat(chat_id)

    def remove(self, name: str) -> None:
        try:
            self.routines.remove(name)
        except RoutineError as error:
            self.show_error(CANNOT_REMOVE.format(name=name), error.message)
            return
        self.window.statusBar().showMessage(f"Removed the routine “{name}”.", 5000)

    def show_error(self, title: str, message: str) -> QMessageBox | None:
        """What could not be done and why, in a message box over the window."""
        if not shiboken6.isValid(self.window):
            return None
        box = QMessageBox(self.window)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Routine")
        box.setText(title)
        box.setInformativeText(message)
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.finished.connect(lambda _result: self._error_closed(box))
        self.error_box = box
        box.open()
        return box

    def _error_closed(self, box: QMessageBox) -> None:
        if self.error_box is box:
            self.error_box = None
        box.deleteLater()

    def _keep(self, task: asyncio.Future[int | None]) -> asyncio.Future[int | None]:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- the update a healed run offers -------------------------------------------------

    def _offer_update(self) -> None:
        view = self.window.stack.currentWidget()
        chat_id = getattr(view, "session_id", None)
        offer = None
        if chat_id is not None and chat_id not in self._dismissed_chats:
            offer = self.routines.update_for(chat_id)
        self.update_bar.show_offer(offer)

    def apply_update(self, chat_id: int) -> None:
        """Update Routine: the healed steps go into the routine's file."""
        try:
            routine = self.routines.apply_update(chat_id)
        except RoutineError as error:
            name = self.update_bar.offer.name if self.update_bar.offer else ""
            self.show_error(CANNOT_UPDATE.format(name=name), error.message)
            return
        self.window.statusBar().showMessage(
            f"Updated “{routine.name}”: its next run replays the healed steps.", 8000
        )
        self._offer_update()

    def _dismissed(self, chat_id: int) -> None:
        self._dismissed_chats.add(chat_id)
