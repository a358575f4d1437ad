"""A reopened chat shows each tool card exactly as it was shown live."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop.system.settings.permissions import Mode
from tests.support.model_server import ToolUse, text_reply, tool_reply
from tests.support.sample_tools import NotebookTool
from tests.support.seen import card_texts
from tests.support.window import finish_turn, settle, type_and_send
from tools.base import Risk
from ui.thread.tool_card import ToolRun
from ui.window.main_window import MainWindow


def run_lines(window: MainWindow) -> list[tuple[str, str, str, int]]:
    """Each "N steps" run's line and how many calls it holds."""
    return [
        (r.title.text(), r.detail.text(), r.state.text(), len(r.cards()))
        for r in window.thread.findChildren(ToolRun)
    ]


def test_cards_read_the_same_live_and_after_a_restart(
    qtbot, window, workspace, model_server, aloop
) -> None:  # type: ignore[no-untyped-def]
    workspace.registry.add(NotebookTool(risk=Risk.CHANGE))
    workspace.live.set_mode(Mode.CHANGES)
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
    assert [(title, state) for title, _, state, *_ in live] == [
        ("Notebook: write", "Not confirmed"),
        ("Notebook: notebook", "Failed"),
        ("teleport", "No such tool"),
        ("Notebook: write", "You denied this"),
    ]
    assert live[0][1] == "'milk'"  # the label is not said twice
    assert "Claude was told" in live[3][3] and "Do not try" not in live[3][4]
    # Four calls in a row (two replies, no text between them) fold into one run.
    assert run_lines(window) == [
        ("4 steps", "Notebook, teleport", "2 failed · 1 denied by you · 1 not confirmed", 4)
    ]

    # A restart: a new window on the same data, the chat opened from the list.
    workspace.registry.remove("notebook")
    workspace.registry.add(NotebookTool(risk=Risk.CHANGE))
    reopened = MainWindow(workspace)
    qtbot.addWidget(reopened)
    reopened.open_session(window.current_session_id)
    assert card_texts(reopened) == live
    assert run_lines(reopened) == run_lines(window)
