"""The tray (menu bar) icon with New chat, Show and Quit, and desktop notifications.

A notification goes to the freedesktop notification service on Linux (through
`notify-send`, or `gdbus`, started detached so the window never waits), which works
with or without a tray; elsewhere through the tray icon's own message (macOS
Notification Center, Windows balloons).
"""

from __future__ import annotations

import json
import logging
import shutil
import sys

from PySide6.QtCore import QObject, QProcess, Signal
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon, QWidget

log = logging.getLogger(__name__)

NOTIFY_SERVICE = "org.freedesktop.Notifications"
NOTIFY_PATH = "/org/freedesktop/Notifications"
NOTIFY_TIMEOUT_MS = 8000


class Tray(QObject):
    """The tray icon and its menu; `new_chat`, `show_window` and `quit` say what was picked."""

    new_chat = Signal()
    show_window = Signal()
    quit = Signal()

    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.menu = QMenu(parent)
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
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.icon.show()

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


class Notifier:
    """Posts desktop notifications."""

    def __init__(self, tray: Tray | None) -> None:
        self.tray = tray

    def notify(self, title: str, body: str) -> bool:
        """Show a notification; False when there is no way to show one here."""
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
