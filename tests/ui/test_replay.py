"""A reopened chat shows each tool card exactly as it was shown live."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop.permissions import Mode
from tests.support.model_server import ToolUse, text_reply, tool_reply
from tests.support.sample_tools import NotebookTool
from tests.ui import test_main_window as main_window_tests
from tests.ui.test_main_window import finish_turn, settle, type_and_send
from tools.base import Risk
from ui.main_window import MainWindow
from ui.tool_card import ToolCard

window = main_window_tests.window


def card_texts(window: MainWindow) -> list[tuple[str, str, str, str, int]]:
    """What a person reads on each card, top to bottom: label, summary, state, outcome,
    thumbnails."""
    return [
        (c.title.text(), c.detail.text(), c.state.text(), c.outcome.text(), len(c.thumbnails))
        for c in window.thread.items()
        if isinstance(c, ToolCard)
    ]


def test_cards_read_the_same_live_and_after_a_restart(
    qtbot, window, workspace, model_server, aloop
) -> None:  # type: ignore[no-untyped-def]
    workspace.registry.add(NotebookTool(risk=Risk.CHANGE))
    workspace.set_mode(Mode.CHANGES)
    model_server.enqueue(
        tool_reply(
            ToolUse(name="notebook", input={"text": "milk"}),
            ToolUse(name="notebook", input=["eggs"]),
            ToolUse(name="teleport", input={"to": "Mars"}),
            text="Let me note that.",
        ),
        tool_reply(ToolUse(name="notebook", input={"text": "bread"})),
        text_reply("Milk is noted; bread was not."),
    )
    type_and_send(qtbot, window, "Remember milk")
    for answer in ("allow", "deny"):
        settle(aloop, lambda: window.approval_sheet is not None, "the approval sheet")
        sheet = window.approval_sheet
        assert sheet is not None
        button = sheet.allow_once if answer == "allow" else sheet.deny
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        settle(aloop, lambda s=sheet: window.approval_sheet is not s, "the sheet to close")
    finish_turn(aloop, window)
    live = card_texts(window)
    assert [(title, state) for title, _, state, _, _ in live] == [
        ("Notebook: write", "Done"),
        ("Notebook: notebook", "Failed"),
        ("teleport", "Failed"),
        ("Notebook: write", "Denied by you"),
    ]
    assert live[0][1] == "Notebook: write 'milk'"

    # A restart: a new window on the same data, the chat opened from the list.
    workspace.registry.remove("notebook")
    workspace.registry.add(NotebookTool(risk=Risk.CHANGE))
    reopened = MainWindow(workspace)
    qtbot.addWidget(reopened)
    reopened.open_session(window.current_session_id)
    assert card_texts(reopened) == live
