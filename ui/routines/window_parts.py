"""The window's routines: the sidebar's section with the update bar, the routines' pages, the
bar of a scheduled run that waits, and the tray's hold on closing and Quit.

They are made right after the window's first paint, once the routines' modules are in
(desktop/app.py, `MainWindow.add_routines`): the first picture shows the chats, and the routines
join it a moment later. Code that needs them sooner (closing the window at once, a test) makes
them on the spot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.routines.page_host import RoutinePages
from ui.routines.runs import RoutineRuns
from ui.routines.waiting import WaitingChats
from ui.window.staying_up import StayingUp

if TYPE_CHECKING:
    from ui.window.main_window import MainWindow


class WindowRoutines:
    """The routines' parts of one window, wired to its workspace's routines."""

    def __init__(self, window: MainWindow) -> None:
        routines = window.workspace.routines
        self.runs = RoutineRuns(window)
        self.pages = RoutinePages(window, self.runs.section)
        self.waiting = WaitingChats(window)
        self.staying_up = StayingUp(window)
        # A routine Deskhand did not write runs only once the person keeps it on this sheet.
        routines.ask_keep = lambda routine: window.routine_files.ask_keep(routine)
        self._closers = [
            self.runs.close,
            self.pages.close,
            self.waiting.close,
            self.staying_up.close,
            lambda: setattr(routines, "ask_keep", None),
        ]

    def close(self) -> None:
        for close in self._closers:
            close()
