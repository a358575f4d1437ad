"""Where the routine's page shows: in the window's main area, in place of the chat, from the
sidebar's Routines section (a click on a routine, or ⋯ → Schedule…). Opening any chat, or
Back to Chat, brings the chat back; a run's row opens that run's chat.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject

from desktop.routines.schedules.times import short
from ui.routines.page import RoutinePage

if TYPE_CHECKING:
    from ui.routines.section import RoutinesSection
    from ui.window.main_window import MainWindow


class RoutinePages(QObject):
    """The routine's page in the window, kept up to date while it shows."""

    def __init__(self, window: MainWindow, section: RoutinesSection) -> None:
        super().__init__(window)
        self.window = window
        workspace = window.workspace
        section.page_requested.connect(self.open)
        section.next_run_of = self._next_run_of
        section.waiting_of = self._waiting_of
        self.section = section
        self._unsubscribe = [
            workspace.routines.subscribe(self._changed),
            workspace.unattended.subscribe(lambda _chat: self._changed()),
        ]
        section.refresh()

    def close(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()

    @cached_property
    def page(self) -> RoutinePage:
        """The page, made when first opened (not a step the window's start need take)."""
        workspace = self.window.workspace
        page = RoutinePage(workspace.routines, workspace.scheduler, workspace.unattended)
        page.chat_requested.connect(self._open_chat)
        page.close_requested.connect(self.back)
        self.window.pages.addWidget(page)
        return page

    def showing(self) -> bool:
        return "page" in vars(self) and self.window.pages.currentWidget() is self.page

    def open(self, name: str) -> RoutinePage:
        """Show `name`'s page."""
        self.page.show_routine(name)
        self.window.pages.setCurrentWidget(self.page)
        self.window.setWindowTitle(f"{name} — Deskhand")
        self.page.picker.kind.setFocus()
        return self.page

    def back(self) -> None:
        """Back to the chat the window was on."""
        current = self.window.current_session_id
        if current is not None:
            self.window.open_session(current)
        else:
            self.window.new_chat()

    def _open_chat(self, chat_id: int) -> None:
        self.window.sessions.refresh()
        self.window.open_session(chat_id)

    def _next_run_of(self, name: str) -> str:
        upcoming = self.window.workspace.scheduler.next_for(name)
        return short(upcoming) if upcoming is not None else ""

    def _waiting_of(self, name: str) -> bool:
        chat_id = self.window.workspace.routines.running().get(name)
        return chat_id is not None and bool(self.window.workspace.unattended.waiting(chat_id))

    def _changed(self) -> None:
        made = vars(self).get("page")
        if made is not None and not shiboken6.isValid(made):
            return  # the window is gone
        if shiboken6.isValid(self.section):
            self.section.refresh()  # its marks: the next run, a run that waits
        if self.showing():
            names = self.window.workspace.routines.entries()
            if self.page.name not in {listed.name for listed in names}:
                self.back()  # removed while its page showed
                return
            self.page.refresh()
