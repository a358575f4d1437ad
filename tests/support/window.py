"""Driving the real main window in tests: type and send as a person does, wait for the turn to
finish, and look at what the window shows (the approval sheet, the tool cards).

The `window` fixture itself (a shown `MainWindow` on the test's workspace) is in
`tests/ui/conftest.py`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.support.turns import turn_log
from tests.support.waiting import wait_until
from ui.thread.tool_card import ToolCard
from ui.window.main_window import MainWindow


def settle(aloop, predicate, what: str, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    aloop.run_until_complete(wait_until(predicate, timeout, what))


def finish_turn(aloop, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    turns = turn_log(window.conversations)
    settle(aloop, lambda: turns.finished, "the turn")
    assert not turns.unexpected, turns.unexpected


def type_and_send(qtbot, window: MainWindow, text: str) -> None:  # type: ignore[no-untyped-def]
    turn_log(window.conversations)
    qtbot.keyClicks(window.composer.editor, text)
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)


def sheet_open(window: MainWindow) -> bool:
    return window.approval_sheet is not None and window.approval_sheet.isVisible()


def cards(window: MainWindow) -> list[ToolCard]:
    return window.thread.findChildren(ToolCard)
