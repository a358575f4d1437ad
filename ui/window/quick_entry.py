"""Quick entry: a small composer over any app, opened by the system-wide shortcut.

It opens on the screen the pointer is on, frameless and above other windows, with the
keyboard focus in its text box. It shows the permission mode the message will run in; Enter
sends (to a new chat, or the latest one: Settings → General), Esc hides it, and files come
in by pasting or dropping, as in the window's own composer (it is the same widget). Typing a
routine's name offers it: Tab completes, and Enter on its exact name runs it instead.

After Enter the main window comes to the front on that chat with the reply streaming: the
approval sheets, tool cards and Stop the reply may need are all there, and a second, smaller
rendering of the thread under the composer would have to repeat them.

`QuickEntryController` ties it to the app: it holds the shortcut (through the workspace's
`QuickEntryShortcut`) when this Deskhand owns its command socket, follows Settings, and
says, in a notice on the window, when the shortcut cannot work.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtGui import QCursor, QDragEnterEvent, QDropEvent, QGuiApplication, QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from desktop.system.settings.model import Settings
from desktop.system.settings.permissions import MODE_TITLES
from desktop.workspace import Workspace
from ui import theme
from ui.routines import style as routines_style
from ui.routines.quick_offer import RoutineOffer
from ui.thread import attachment_views
from ui.thread.message_edit import local_files
from ui.window import composer
from ui.window.composer import Composer

if TYPE_CHECKING:
    from ui.window.main_window import MainWindow

__all__ = ["QuickEntry", "QuickEntryController"]

log = logging.getLogger(__name__)

WIDTH = 640
TOP_SHARE = 0.22  # how far down the screen it opens: where the eyes already are
SEND_HINT = "Enter to send  ·  Esc to close"
RUN_HINT = "Enter to run the routine  ·  Esc to close"


class QuickEntry(QFrame):
    """The floating composer. `composer.submitted` carries the text; the controller sends."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(
            parent,
            Qt.WindowType.Tool
            | Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint,
        )
        self.workspace = workspace
        self.setObjectName("quickEntry")
        self.setWindowTitle("Deskhand quick entry")
        self.setAcceptDrops(True)
        self.setFixedWidth(WIDTH)
        self.mode_label = QLabel()
        self.mode_label.setObjectName("quickEntryMode")
        self.hint = QLabel(SEND_HINT)
        self.hint.setObjectName("quickEntryHint")
        self.composer = Composer(attacher=workspace.conversations)
        self.composer.editor.stop.connect(self.hide)  # Esc in the text box
        self.offer_label = QLabel()
        self.offer = RoutineOffer(self.composer.editor, self.offer_label, workspace.routines)
        self.composer.editor.textChanged.connect(self._hint_for_text)
        header = QHBoxLayout()
        header.setContentsMargins(4, 0, 4, 0)
        header.addWidget(self.mode_label)
        header.addStretch(1)
        header.addWidget(self.hint)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 14)
        layout.setSpacing(8)
        layout.addLayout(header)
        layout.addWidget(self.composer)
        layout.addWidget(self.offer_label)
        styles = [
            theme.BASE_STYLE,
            composer.STYLE,
            attachment_views.STYLE,
            routines_style.QUICK_OFFER,
        ]
        theme.theme().attach(self, "\n".join([*styles, STYLE]))

    def _hint_for_text(self) -> None:
        named = self.offer.exact(self.composer.text()) is not None
        self.hint.setText(RUN_HINT if named else SEND_HINT)

    def show_mode(self) -> None:
        self.mode_label.setText(f"Mode: {MODE_TITLES[self.workspace.live.mode]}")

    def show_at_pointer(self) -> None:
        """Open on the screen the pointer is on, with the keyboard focus in the text box."""
        self.show_mode()
        pointer = QCursor.pos()
        screen = QGuiApplication.screenAt(pointer) or QGuiApplication.primaryScreen()
        self.adjustSize()
        area = screen.availableGeometry()
        self.move(
            QPoint(
                area.center().x() - self.width() // 2,
                area.top() + int(area.height() * TOP_SHARE),
            )
        )
        self.show()
        self.raise_()
        self.activateWindow()
        self.composer.editor.setFocus()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.hide()
            return
        super().keyPressEvent(event)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_files(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = local_files(event.mimeData())
        if paths:
            self.composer.attach_paths(paths)
            event.acceptProposedAction()


class QuickEntryController(QObject):
    """The shortcut, the floating composer, and where what it sends goes."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.workspace = window.workspace
        self.panel = QuickEntry(self.workspace)
        self.panel.composer.submitted.connect(self.send)
        self.shortcut = self.workspace.quick_entry_shortcut
        self.shortcut.on_press = self.toggle
        self.owner = False
        self._held_setting: str | None = None
        self.holding: asyncio.Future[None] | None = None  # a new shortcut being taken
        self.workspace.live.listeners.append(self._settings_changed)

    async def start(self, *, owner: bool) -> None:
        """Hold the shortcut if this Deskhand owns the command socket; a second one leaves it
        to the first."""
        self.owner = owner
        if owner:
            await self._hold(self.workspace.settings.general.quick_entry_shortcut)

    async def _hold(self, stored: str) -> None:
        self._held_setting = stored
        await self.shortcut.hold(stored)
        if self.shortcut.problem and shiboken6.isValid(self.window):
            self.window.show_notice(self.shortcut.problem)

    def _settings_changed(self, settings: Settings) -> None:
        stored = settings.general.quick_entry_shortcut
        if self.owner and stored != self._held_setting:
            self.holding = asyncio.ensure_future(self._hold(stored))

    def toggle(self) -> None:
        if not shiboken6.isValid(self.panel):
            return
        if self.panel.isVisible() and self.panel.isActiveWindow():
            self.panel.hide()
        else:
            self.panel.show_at_pointer()

    def send(self, text: str) -> None:
        """To a new chat or the latest one; then the window shows the reply as it streams.
        A routine's exact name (and no files) runs that routine instead, in its own chat."""
        window = self.window
        attached = self.panel.composer.attachments()
        routine = self.panel.offer.exact(text)
        if routine is not None and not attached:
            window.routine_runs.run(routine)
            self.panel.composer.clear()
            self.panel.hide()
            return
        if self.workspace.settings.general.quick_entry_target == "latest":
            latest = self.workspace.store.sessions()
            if latest and not window.is_running(latest[0].id):
                window.open_session(latest[0].id)
            else:
                window.new_chat()
        else:
            window.new_chat()
        if window.send(text, attached):
            self.panel.composer.clear()
            self.panel.hide()
            window.bring_to_front()

    def close(self) -> None:
        self.shortcut.release()
        self.shortcut.on_press = None
        if self._settings_changed in self.workspace.live.listeners:
            self.workspace.live.listeners.remove(self._settings_changed)
        if shiboken6.isValid(self.panel):
            self.panel.hide()
            self.panel.deleteLater()


STYLE = """
#quickEntry { background: $chrome; border: 1px solid $border; border-radius: 12px; }
#quickEntryMode { color: $text; font-weight: 600; }
#quickEntryHint { color: $text_faint; }
"""
