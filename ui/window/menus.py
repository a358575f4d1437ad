"""The window's menus and keyboard shortcuts, from one table.

Each row is a command: its menu, title, shortcut and the window method it calls. The
menus, the shortcuts and the Keyboard Shortcuts dialog (ui/window/help_dialogs.py) are all
made from it, so they cannot disagree. "Ctrl" reads as ⌘ on a Mac (Qt maps it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow

Key = str | QKeySequence.StandardKey | None
SWITCH_CHATS = 9


@dataclass(frozen=True)
class Command:
    menu: str
    title: str
    shortcut: Key
    slot: str  # the window's method, or a dotted path to one of its parts' ("part.method")
    role: QAction.MenuRole | None = None
    checkable: bool = False
    separator_before: bool = False


COMMANDS = [
    Command("&File", "&New Chat", QKeySequence.StandardKey.New, "new_chat"),
    Command("&File", "&Export Chat as Markdown…", "Ctrl+Shift+E", "export_chat"),
    Command("&File", "Save as &Routine…", None, "routine_files.save_current"),
    Command(
        "&File", "&Import Routine…", None, "routine_files.import_routine", separator_before=True
    ),
    Command("&File", "Export R&outine…", None, "routine_files.export_routine"),
    Command(
        "&File",
        "&Settings…",
        "Ctrl+,",
        "open_settings",
        role=QAction.MenuRole.PreferencesRole,
        separator_before=True,
    ),
    Command(
        "&File",
        "&Quit",
        QKeySequence.StandardKey.Quit,
        "close",
        role=QAction.MenuRole.QuitRole,
        separator_before=True,
    ),
    Command("&Edit", "Copy &Last Reply", "Ctrl+Shift+C", "copy_last_reply"),
    Command("&Edit", "&Attach Files…", "Ctrl+Shift+A", "attach_files"),
    Command("&Edit", "&Stop Reply", "Esc", "stop", separator_before=True),
    Command("&View", "Show &Sidebar", "Ctrl+Shift+S", "set_sidebar_visible", checkable=True),
    Command("&View", "&Search Chats", "Ctrl+K", "focus_search"),
    Command("&View", "&Jump to Latest", "Ctrl+End", "jump_to_latest"),
    Command("&Help", "&Keyboard Shortcuts", "Ctrl+/", "show_shortcuts"),
    Command("&Help", "&About Deskhand", None, "show_about", role=QAction.MenuRole.AboutRole),
]

# Keys that belong to a widget rather than to a menu, listed in the shortcuts dialog too.
OTHER_KEYS = [
    ("Enter", "Send the message"),
    ("Shift+Enter", "Start a new line"),
    (f"Ctrl+1 … Ctrl+{SWITCH_CHATS}", "Open the first nine chats in the sidebar"),
    ("F2", "Rename the chat selected in the sidebar"),
    ("Delete", "Delete the chat selected in the sidebar"),
    ("Ctrl+Return", "Allow once, in an approval sheet"),
]


def _sequence(key: Key) -> QKeySequence:
    return QKeySequence(key) if key is not None else QKeySequence()


def _slot(window: QMainWindow, path: str) -> Callable[..., object]:
    found: object = window
    for name in path.split("."):
        found = getattr(found, name)
    assert callable(found), path
    return found


def build_menus(window: QMainWindow) -> dict[str, QAction]:
    """The menu bar and the chat-switching shortcuts; returns the actions by slot name."""
    actions: dict[str, QAction] = {}
    menus: dict[str, object] = {}
    for command in COMMANDS:
        menu = menus.get(command.menu)
        if menu is None:
            menu = menus[command.menu] = window.menuBar().addMenu(command.menu)
        action = QAction(command.title, window)
        action.setShortcut(_sequence(command.shortcut))
        if command.role is not None:
            action.setMenuRole(command.role)
        if command.checkable:
            action.setCheckable(True)
            action.setChecked(True)
            action.toggled.connect(_slot(window, command.slot))
        else:
            # Looked up when chosen: a part the window makes on first use stays unmade till then.
            action.triggered.connect(
                lambda _checked=False, path=command.slot: _slot(window, path)()
            )
        if command.separator_before:
            menu.addSeparator()  # type: ignore[attr-defined]
        menu.addAction(action)  # type: ignore[attr-defined]
        actions[command.slot] = action
    for number in range(1, SWITCH_CHATS + 1):
        switch = QAction(f"Chat {number}", window)
        switch.setShortcut(QKeySequence(f"Ctrl+{number}"))
        switch.triggered.connect(lambda _checked=False, n=number: window.open_chat_number(n))  # type: ignore[attr-defined]
        window.addAction(switch)  # shortcuts of actions in no menu work once added here
        actions[f"chat_{number}"] = switch
    return actions


def shortcut_rows() -> list[tuple[str, str]]:
    """Every shortcut, as it reads on this platform, with what it does."""
    rows = [
        (
            _sequence(c.shortcut).toString(QKeySequence.SequenceFormat.NativeText),
            c.title.replace("&", "").rstrip("…"),
        )
        for c in COMMANDS
        if c.shortcut is not None
    ]
    native = [
        (
            " … ".join(
                QKeySequence(part).toString(QKeySequence.SequenceFormat.NativeText)
                for part in keys.split(" … ")
            ),
            what,
        )
        for keys, what in OTHER_KEYS
    ]
    return rows + native
