"""The tray (menu bar) icon with New chat, Show and Quit, and desktop notifications: a
turn that ran long and ended while the window was in the background is announced, and
clicking the announcement opens that chat.

On Linux a notification goes to the freedesktop notification service, which works with
or without a tray: over the session bus from the running app (desktop/system/notifications.py,
which also hears the click), else through `notify-send` or `gdbus`, started detached so
the window never waits (no click is heard then). Elsewhere it is the tray icon's own
message (macOS Notification Center, Windows balloons), whose click the icon reports.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QProcess, Signal
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon, QWidget

if TYPE_CHECKING:
    from desktop.system.notifications import DesktopNotifications

log = logging.getLogger(__name__)

NOTIFY_SERVICE = "org.freedesktop.Notifications"
NOTIFY_PATH = "/org/freedesktop/Notifications"
NOTIFY_TIMEOUT_MS = 8000
# A turn at least this long that ends while the window is in the background is announced.
LONG_TURN_SECONDS = 20.0
PREVIEW_CHARS = 140


class Tray(QObject):
    """The tray icon and its menu; `new_chat`, `show_window` and `quit` say what was picked,
    `message_clicked` that the person clicked the notification the icon showed."""

    new_chat = Signal()
    show_window = Signal()
    quit = Signal()
    message_clicked = Signal()

    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.menu = QMenu(parent)
        # "2 routines scheduled": a line, not a command, shown while any routine is scheduled.
        self.scheduled_action = QAction("", self.menu)
        self.scheduled_action.setEnabled(False)
        self.scheduled_action.setVisible(False)
        self.menu.addAction(self.scheduled_action)
        self.scheduled_separator = self.menu.addSeparator()
        self.scheduled_separator.setVisible(False)
        self._told = False
        self.new_chat_action = QAction("New Chat", self.menu)
        self.new_chat_action.triggered.connect(self.new_chat)
        self.show_action = QAction("Show Deskhand", self.menu)
        self.show_action.triggered.connect(self.show_window)
        self.quit_action = QAction("Quit Deskhand", self.menu)
        self.quit_action.triggered.connect(self.quit)
        self.menu.addAction(self.new_chat_action)
        self.menu.addAction(self.show_action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        self.icon = QSystemTrayIcon(icon, self)
        self.icon.setToolTip("Deskhand")
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        self.icon.messageClicked.connect(self.message_clicked)
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.icon.show()

    def set_scheduled(self, words: str) -> None:
        """The scheduled routines' line in the menu and the tooltip ("" when none is)."""
        self.scheduled_action.setText(words)
        self.scheduled_action.setVisible(bool(words))
        self.scheduled_separator.setVisible(bool(words))
        self.icon.setToolTip(f"Deskhand — {words}" if words else "Deskhand")

    def say(self, text: str) -> None:
        """Tell the person once (the first time the window goes to the tray) where it went."""
        if not self._told and self.icon.supportsMessages():
            self._told = True
            self.icon.showMessage("Deskhand", text, QSystemTrayIcon.MessageIcon.Information)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.show_window.emit()


def notify_command(title: str, body: str) -> list[str] | None:
    """The command that posts a notification on this Linux desktop, or None if none is here.

    Title and body are the command's own arguments; for gdbus they are written as GVariant
    string literals (JSON's quoting is a valid subset), so no text is ever parsed as code.
    """
    if tool := shutil.which("notify-send"):
        return [
            tool,
            "--app-name=Deskhand",
            f"--expire-time={NOTIFY_TIMEOUT_MS}",
            "--",
            title,
            body,
        ]
    if tool := shutil.which("gdbus"):
        quoted = [
            json.dumps(text, ensure_ascii=False) for text in ("Deskhand", "deskhand", title, body)
        ]
        return [
            tool, "call", "--session", "--dest", NOTIFY_SERVICE, "--object-path", NOTIFY_PATH,
            "--method", f"{NOTIFY_SERVICE}.Notify",
            quoted[0], "uint32 0", quoted[1], quoted[2], quoted[3],
            "@as []", "@a{sv} {}", f"int32 {NOTIFY_TIMEOUT_MS}",
        ]  # fmt: skip
    return None


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class Notifier:
    """Posts desktop notifications, and remembers which chat the newest one is about (what
    a click on the tray's message opens). With `clicked`, a click the Linux notification
    service reports is handed to it with the chat's id."""

    def __init__(self, tray: Tray | None, clicked: Callable[[int], None] | None = None) -> None:
        self.tray = tray
        self.session_id: int | None = None
        self._clicked = clicked
        self._bus: DesktopNotifications | None = None
        self._posting: set[asyncio.Future[None]] = set()

    def notify(self, title: str, body: str, session_id: int | None = None) -> bool:
        """Show a notification about a chat; False when there is no way to show one here."""
        self.session_id = session_id
        if (
            sys.platform.startswith("linux")
            and self._clicked is not None
            and session_id is not None
            and _loop_running()
        ):
            posting = asyncio.ensure_future(self._post_on_bus(title, body, session_id))
            self._posting.add(posting)  # held until done: the loop keeps only weak references
            posting.add_done_callback(self._posting.discard)
            return True
        return self._post(title, body)

    async def _post_on_bus(self, title: str, body: str, session_id: int) -> None:
        if self._bus is None:
            from desktop.system.notifications import (
                DesktopNotifications,  # Linux, and only when needed
            )

            assert self._clicked is not None
            self._bus = DesktopNotifications(self._clicked)
        if not await self._bus.notify(title, body, session_id):
            self._post(title, body)  # no service on the bus: the commands, or the tray

    async def close(self) -> None:
        """At quit: stop listening for clicks."""
        for posting in list(self._posting):
            posting.cancel()
        await asyncio.gather(*self._posting, return_exceptions=True)
        if self._bus is not None:
            await self._bus.close()

    def _post(self, title: str, body: str) -> bool:
        if sys.platform.startswith("linux") and (command := notify_command(title, body)):
            started = QProcess.startDetached(command[0], command[1:])[0]
            if started:
                return True
            log.info("the desktop notification could not be posted")
        tray = self.tray
        if tray is not None and tray.icon.isVisible() and tray.icon.supportsMessages():
            tray.icon.showMessage(
                title, body, QSystemTrayIcon.MessageIcon.Information, NOTIFY_TIMEOUT_MS
            )
            return True
        return False


class LongTurns:
    """Times each chat's turn; one that ran long and ends unseen gets a notification."""

    def __init__(
        self,
        notifier: Notifier,
        *,
        seen: Callable[[], bool],
        title_of: Callable[[int], str],
        reply_of: Callable[[int], str],
    ) -> None:
        self.notifier = notifier
        self._seen = seen  # whether the person is looking at the window
        self._title_of = title_of
        self._reply_of = reply_of
        self._started: dict[int, float] = {}
        self._failed: dict[int, str] = {}

    def started(self, session_id: int) -> None:
        self._started[session_id] = time.monotonic()
        self._failed.pop(session_id, None)

    def failed(self, session_id: int, title: str) -> None:
        self._failed[session_id] = title

    def ended(self, session_id: int, *, stopped: bool) -> bool:
        """The turn is over; True when it was announced."""
        started = self._started.pop(session_id, None)
        failed = self._failed.pop(session_id, None)
        if (
            started is None
            or stopped  # the person stopped it: they know
            or time.monotonic() - started < LONG_TURN_SECONDS
            or self._seen()
        ):
            return False
        if failed:
            body = f"Claude stopped: {failed}."
        else:
            reply = " ".join(self._reply_of(session_id).split())
            if len(reply) > PREVIEW_CHARS:
                reply = reply[: PREVIEW_CHARS - 1].rstrip() + "…"
            body = reply or "Claude has finished."
        return self.notifier.notify(self._title_of(session_id), body, session_id)
