"""The quick entry offers routines by name (offscreen, the real window): typing the start of a
routine's name offers it, Tab completes it, and Enter on its exact name runs it with its
defaults in its own chat, instead of sending the text to Claude."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt

from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, text_reply
from tests.support.routines import NAME, record
from tests.support.window import settle
from ui.window.main_window import MainWindow
from ui.window.quick_entry import QuickEntryController


@pytest.fixture
def quick(qtbot, workspace: Workspace, aloop) -> Iterator[QuickEntryController]:  # type: ignore[no-untyped-def]
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    made = QuickEntryController(window)
    qtbot.addWidget(made.panel)
    yield made
    made.close()
    aloop.run_until_complete(window.shutdown())


def test_tab_completes_a_routines_name_and_enter_runs_it(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    quick: QuickEntryController,
    model_server: ScriptedModelServer,
) -> None:
    window, panel = quick.window, quick.panel
    recorded = record(qtbot, aloop, window, model_server)
    window.new_chat()
    editor, offer = panel.composer.editor, panel.offer_label
    quick.toggle()
    assert not offer.isVisible()
    qtbot.keyClicks(editor, "fill")
    assert offer.isVisible()
    assert offer.text() == f"▶ Routine “{NAME}”: Tab completes, then Enter runs"
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert editor.toPlainText() == NAME
    assert offer.text() == f"▶ Run the routine “{NAME}”: Enter"
    assert panel.hint.text() == "Enter to run the routine  ·  Esc to close"
    qtbot.keyClicks(editor, "x")  # no routine is called that
    assert not offer.isVisible()
    assert panel.hint.text() == "Enter to send  ·  Esc to close"
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)

    model_server.enqueue(text_reply("The field holds Ada."))
    requests = len(model_server.message_requests)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    settle(aloop, lambda: window.windowTitle() == f"▶ {NAME} — Deskhand", "the run's chat")
    assert not panel.isVisible() and panel.composer.text() == ""
    settle(aloop, lambda: not window.conversations.running, "the run")
    assert recorded.field.value == "Ada"  # the parameter's default
    # The name went to no one: the one request is the run's answer, in the run's chat.
    assert len(model_server.message_requests) == requests + 1
    sessions = window.workspace.store.sessions()
    assert [s.title for s in sessions] == [f"▶ {NAME}", sessions[1].title]
