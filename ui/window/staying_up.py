"""Staying up for scheduled routines: while any routine is scheduled, closing the window leaves
Deskhand in the tray ("2 routines scheduled"), and Quit asks first, naming the next run.

With nothing scheduled, closing the window quits as it always did, and Quit asks nothing.
Where there is no tray to stay in (a desktop without one), the window is minimized instead of
hidden, so Deskhand stays within the person's reach. Quitting that the system asks for
(logout, the Dock, a signal) never asks: the app says so through its `quit_requested`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop.routines.schedules.times import short

if TYPE_CHECKING:
    from ui.window.main_window import MainWindow

QUIT_QUESTION = "Quit Deskhand?"
QUIT_NEXT = "“{name}” is next due {when}."
QUIT_ABOUT = "Scheduled routines run only while Deskhand is running."
IN_TRAY = "Deskhand keeps running in the tray for {count}. Quit it from there."


def scheduled_words(count: int) -> str:
    """The tray's line: "2 routines scheduled"."""
    return f"{count} routine{'s' if count != 1 else ''} scheduled"


class StayingUp(QObject):
    """The window's close and Quit, as scheduled routines need them."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.scheduler = window.workspace.scheduler
        self.leaving = False  # the person (or the system) quits: closing really closes
        # Whether the last window closing quit the app before the tray held it (None: not held).
        self._quit_on_close: bool | None = None
        self.question: QMessageBox | None = None
        self._unsubscribe: Callable[[], None] = window.workspace.routines.subscribe(self.update)
        app = QApplication.instance()
        asked = getattr(app, "quit_requested", None)  # the app's own quit (desktop/app.py)
        if asked is not None:
            asked.connect(self._system_quits)

    def close(self) -> None:
        self._unsubscribe()

    def _system_quits(self) -> None:
        self.leaving = True

    def count(self) -> int:
        return self.scheduler.scheduled_count()

    def update(self) -> None:
        """The tray's line follows the schedules (once the tray is made)."""
        if shiboken6.isValid(self.window) and "tray" in vars(self.window):
            self.window.tray.set_scheduled(scheduled_words(self.count()) if self.count() else "")

    # -- closing the window -------------------------------------------------------------------

    def keeps_running(self) -> bool:
        """The window is being closed: True when Deskhand stays up instead (it then hides in
        the tray, or minimizes where there is none)."""
        count = self.count()
        if self.leaving or not count:
            return False
        tray = self.window.tray  # made now if it was not yet
        tray.set_scheduled(scheduled_words(count))
        if tray.icon.isVisible():
            # Hidden, the window is no longer "the last window": nothing closing later (a
            # dialog) may quit the app behind the person's back.
            if self._quit_on_close is None:
                self._quit_on_close = QApplication.quitOnLastWindowClosed()
            QApplication.setQuitOnLastWindowClosed(False)
            self.window.hide()
            tray.say(IN_TRAY.format(count=scheduled_words(count)))
        else:
            self.window.showMinimized()
        return True

    def shown(self) -> None:
        """The window is back: closing it is judged again then (the app's own choice of
        whether the last window quits it, which the tray had held, comes back)."""
        if self._quit_on_close is not None:
            QApplication.setQuitOnLastWindowClosed(self._quit_on_close)
            self._quit_on_close = None

    # -- quitting -----------------------------------------------------------------------------

    def quit(self) -> QMessageBox | None:
        """Quit (the menu, the tray): with a routine scheduled, ask first, naming the next run,
        Cancel the default; else quit at once."""
        upcoming = self.scheduler.next_run()
        if upcoming is None or self.leaving:
            self._leave()
            return None
        if self.question is not None:
            self.question.raise_()
            return self.question
        name, when = upcoming
        self.window.bring_to_front()  # the person asked, from the tray maybe: in front
        box = QMessageBox(self.window)
        box.setObjectName("quitQuestion")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Quit Deskhand")
        box.setText(f"{QUIT_QUESTION} {QUIT_NEXT.format(name=name, when=short(when))}")
        box.setInformativeText(QUIT_ABOUT)
        quit_button = box.addButton("Quit", QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        box.setWindowModality(Qt.WindowModality.WindowModal)

        def decided(_result: int) -> None:
            self.question = None
            box.deleteLater()
            if box.clickedButton() is quit_button:
                self._leave()

        box.finished.connect(decided)
        self.question = box
        box.open()
        return box

    def _leave(self) -> None:
        self.leaving = True
        QApplication.setQuitOnLastWindowClosed(True)
        if self.window.isHidden():
            # In the tray, and nothing scheduled any more: no window is left to close, and
            # closing a hidden one quits nothing.
            QApplication.quit()
            return
        self.window.close()  # the last window closing quits the app (desktop/app.py)
