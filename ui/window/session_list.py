"""The session sidebar: New chat, a search field, and the sessions newest first, grouped by
date (Today, Yesterday, Previous 7 days, Older).

Search matches titles and message text (through `Store.sessions(query)`); a search that
finds nothing says so. A chat's context menu offers Rename, Save as Routine… and Delete….
Rename is an inline edit (double-click, F2 or the context menu);
delete asks first, in a message box opened with `open()` so the event loop keeps
running. The list only reports what the person asked for; the window carries it out.
`Sidebar` is the list with the Settings button under it, the left pane of the window.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta

from PySide6.QtCore import QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QKeyEvent, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.system.store import Store, format_time
from ui.boxes import boxed
from ui.questions import ask_to_confirm

SEARCH_DELAY_MS = 150
SESSION_ID_ROLE = Qt.ItemDataRole.UserRole
MARK_ROLE = Qt.ItemDataRole.UserRole + 1  # why a chat is marked ("waiting for you: …"), or None
MARK_COLOUR = "#d99a1e"  # amber: reads on the light and the dark sidebar alike
NO_MATCH = "No chats match"


def date_group(updated: float, today: date) -> str:
    """The sidebar heading a chat last active at `updated` goes under."""
    day = datetime.fromtimestamp(updated).date()
    if day >= today:
        return "Today"
    if day == today - timedelta(days=1):
        return "Yesterday"
    if day > today - timedelta(days=7):
        return "Previous 7 days"
    return "Older"


class _SessionListWidget(QListWidget):
    """The list itself; Delete (or Ctrl/Cmd+Backspace) asks to delete the current session."""

    delete_pressed = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        backspace_delete = event.key() == Qt.Key.Key_Backspace and bool(
            event.modifiers() & Qt.KeyboardModifier.ControlModifier
        )
        if event.key() == Qt.Key.Key_Delete or backspace_delete:
            self.delete_pressed.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class SessionList(QWidget):
    """Sidebar of sessions. Emits what the person asks for; `refresh()` re-reads the store."""

    new_chat_requested = Signal()
    session_activated = Signal(int)
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)
    save_routine_requested = Signal(int)

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sessionPane")
        self.store = store
        self.new_chat_button = QPushButton("＋  New chat")
        self.new_chat_button.setObjectName("newChatButton")
        self.new_chat_button.clicked.connect(self.new_chat_requested)
        self.search = QLineEdit()
        self.search.setObjectName("sessionSearch")
        self.search.setPlaceholderText("Search chats")
        # The clear button comes with the first text to clear: its icon is looked up in the
        # system's theme (a few ms of the window's start), and it only shows with text anyway.
        self.search.textChanged.connect(self._offer_clearing)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _text: self._search_timer.start())
        self.list = _SessionListWidget()
        self.list.setObjectName("sessionList")
        self.list.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.currentItemChanged.connect(self._current_changed)
        self.list.itemChanged.connect(self._item_edited)
        self.list.customContextMenuRequested.connect(self._context_menu)
        self.list.delete_pressed.connect(self._delete_current)
        self.no_match = QLabel(NO_MATCH)
        self.no_match.setObjectName("noChatsMatch")
        self.no_match.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.no_match.setWordWrap(True)
        self.no_match.hide()
        self.menu: QMenu | None = None
        self.confirm_box: QMessageBox | None = None
        self._populating = False
        self._selected: int | None = None
        # What marks a chat in the list (a scheduled run waiting for the person): its words,
        # or "" (the window sets it).
        self.mark_of: Callable[[int], str] = lambda _session_id: ""

        boxed(
            QVBoxLayout(self),
            self.new_chat_button,
            self.search,
            self.no_match,
            (self.list, 1),
            margins=(10, 12, 10, 10),
            spacing=8,
        )

    def _offer_clearing(self, text: str) -> None:
        if text and not self.search.isClearButtonEnabled():
            self.search.setClearButtonEnabled(True)

    # -- contents -------------------------------------------------------------------

    def refresh(self) -> None:
        """Re-read the sessions matching the search, keeping the selection."""
        self._search_timer.stop()
        if self.list.state() == QAbstractItemView.State.EditingState:
            self._search_timer.start()  # never yank a title out from under the person's edit
            return
        self._populating = True
        try:
            self.list.clear()
            today = date.today()
            heading = ""
            sessions = self.store.sessions(self.search.text())
            for session in sessions:
                group = date_group(session.updated_at, today)
                if group != heading:
                    self.list.addItem(self._heading(group))
                    heading = group
                item = QListWidgetItem(session.title)
                item.setData(SESSION_ID_ROLE, session.id)
                item.setToolTip(f"{session.title}\nLast activity {format_time(session.updated_at)}")
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                if mark := self.mark_of(session.id):
                    self._mark(item, mark)
                self.list.addItem(item)
                if session.id == self._selected:
                    self.list.setCurrentItem(item)
            searching = bool(self.search.text().strip())
            self.no_match.setText(f"{NO_MATCH} “{self.search.text().strip()}”")
            self.no_match.setVisible(searching and not sessions)
        finally:
            self._populating = False

    def _mark(self, item: QListWidgetItem, mark: str) -> None:
        item.setData(MARK_ROLE, mark)
        item.setIcon(mark_icon())
        font = item.font()
        font.setBold(True)
        item.setFont(font)
        item.setToolTip(f"{item.text()}\n{mark}")
        item.setData(Qt.ItemDataRole.AccessibleDescriptionRole, mark)

    def marks(self) -> dict[int, str]:
        """The marked chats and their marks."""
        return {
            int(item.data(SESSION_ID_ROLE)): str(item.data(MARK_ROLE))
            for item in self.session_items()
            if item.data(MARK_ROLE)
        }

    def _heading(self, text: str) -> QListWidgetItem:
        item = QListWidgetItem(text)
        item.setFlags(Qt.ItemFlag.NoItemFlags)  # not selectable: arrow keys pass over it
        font = item.font()
        font.setPointSizeF(max(font.pointSizeF() * 0.85, 7.5))
        font.setBold(True)
        item.setFont(font)
        item.setForeground(self.palette().color(QPalette.ColorRole.PlaceholderText))
        item.setSizeHint(QSize(0, 30))
        return item

    def headings(self) -> list[str]:
        return [item.text() for item in self._items() if item.data(SESSION_ID_ROLE) is None]

    def _items(self) -> list[QListWidgetItem]:
        return [self.list.item(row) for row in range(self.list.count())]

    def session_items(self) -> list[QListWidgetItem]:
        """The chats in the list, top to bottom (without the date headings)."""
        return [item for item in self._items() if item.data(SESSION_ID_ROLE) is not None]

    def select(self, session_id: int | None) -> None:
        """Highlight a session (None: nothing, as for a new chat) without emitting anything."""
        self._selected = session_id
        self._populating = True
        try:
            item = self._item_for(session_id)
            if item is None:
                self.list.setCurrentRow(-1)
                self.list.clearSelection()
            else:
                self.list.setCurrentItem(item)
        finally:
            self._populating = False

    def session_ids(self) -> list[int]:
        return [int(item.data(SESSION_ID_ROLE)) for item in self.session_items()]

    def titles(self) -> list[str]:
        return [item.text() for item in self.session_items()]

    def _item_for(self, session_id: int | None) -> QListWidgetItem | None:
        for item in self.session_items():
            if session_id is not None and item.data(SESSION_ID_ROLE) == session_id:
                return item
        return None

    # -- what the person does -------------------------------------------------------

    def _current_changed(self, current: QListWidgetItem | None, _previous: object) -> None:
        if self._populating or current is None or current.data(SESSION_ID_ROLE) is None:
            return
        session_id = int(current.data(SESSION_ID_ROLE))
        if session_id != self._selected:
            self._selected = session_id
            self.session_activated.emit(session_id)

    def start_rename(self, session_id: int) -> None:
        item = self._item_for(session_id)
        if item is not None:
            self.list.editItem(item)

    def _item_edited(self, item: QListWidgetItem) -> None:
        if self._populating:
            return
        self.rename_requested.emit(int(item.data(SESSION_ID_ROLE)), item.text())

    def _context_menu(self, position: QPoint) -> None:
        item = self.list.itemAt(position)
        if item is None or item.data(SESSION_ID_ROLE) is None:
            return
        session_id = int(item.data(SESSION_ID_ROLE))
        menu = QMenu(self)
        menu.addAction("Rename", lambda: self.start_rename(session_id))
        menu.addAction("Save as Routine…", lambda: self.save_routine_requested.emit(session_id))
        menu.addAction("Delete…", lambda: self.confirm_delete(session_id))
        self.menu = menu
        menu.popup(self.list.viewport().mapToGlobal(position))

    def _delete_current(self) -> None:
        item = self.list.currentItem()
        if item is not None and item.data(SESSION_ID_ROLE) is not None:
            self.confirm_delete(int(item.data(SESSION_ID_ROLE)))

    def confirm_delete(self, session_id: int) -> QMessageBox:
        """Ask before deleting; `delete_requested` follows only if the person agrees."""
        item = self._item_for(session_id)
        title = item.text() if item is not None else "this chat"
        box = ask_to_confirm(
            self,
            title="Delete chat",
            question=f"Delete “{title}”?",
            detail="The chat and all its messages will be removed. This can't be undone.",
            verb="Delete",
            then=lambda: self.delete_requested.emit(session_id),
            ended=lambda: setattr(self, "confirm_box", None),
        )
        self.confirm_box = box
        return box


def mark_icon() -> QIcon:
    """A round amber dot before a marked chat's title."""
    pixmap = QPixmap(16, 16)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(MARK_COLOUR))
    painter.drawEllipse(4, 4, 8, 8)
    painter.end()
    return QIcon(pixmap)


class Sidebar(QWidget):
    """The window's left pane: the chat list, the sections added under it, and Settings."""

    settings_requested = Signal()

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.setMinimumWidth(180)
        self.sessions = SessionList(store)
        settings_button = QPushButton("⚙  Settings")
        settings_button.setObjectName("sidebarSettings")
        settings_button.clicked.connect(self.settings_requested)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 10)
        layout.addWidget(self.sessions, 1)
        layout.addWidget(settings_button, 0, Qt.AlignmentFlag.AlignLeft)
        self._layout = layout

    def add_section(self, section: QWidget) -> None:
        """A section under the chats, above Settings (the routines, added after the first
        paint): on a sidebar on screen it shows at once, rather than at the loop's next turn."""
        self._layout.insertWidget(self._layout.count() - 1, section)
        if self.isVisible():
            section.show()


LIST_STYLE = """
#noChatsMatch { color: palette(placeholder-text); padding: 16px 6px; }
"""

STYLE = """
#sidebar { background: $sidebar; }
#sidebarSettings {
    background: transparent; border: none; color: $text_muted; padding: 6px 14px; text-align: left;
}
#sidebarSettings:hover { color: $text; }
#sidebarSettings:focus { border: 2px solid $focus; border-radius: 6px; padding: 4px 12px; }
#newChatButton {
    background: $surface; border: 1px solid $border; border-radius: 8px;
    padding: 7px 10px; text-align: left; font-weight: 600; color: $text;
}
#newChatButton:hover { background: $hover; }
#newChatButton:focus { border: 2px solid $focus; padding: 6px 9px; }
#sessionSearch {
    background: $surface; border: 1px solid $border; border-radius: 8px; padding: 5px 8px;
    color: $text;
}
#sessionSearch:focus { border: 2px solid $focus; padding: 4px 7px; }
#sessionList {
    background: transparent; border: 2px solid transparent; border-radius: 8px; outline: 0;
    color: $text;
}
#sessionList:focus { border: 2px solid $focus; }
#sessionList::item { padding: 7px 8px; border-radius: 6px; margin: 1px 0px; }
#sessionList::item:hover { background: $hover; }
#sessionList::item:selected { background: $selected; color: $text; }
"""
