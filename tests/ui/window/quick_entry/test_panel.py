"""The quick composer in the window (offscreen): it shows the permission mode, files dropped on
it or pasted into it go with the message, Enter sends to a new chat or to the latest one (a
setting), and the window then shows the reply."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDragEnterEvent, QDropEvent, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication

from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support import seen
from tests.support.attachments import make_files
from tests.support.model_server import ScriptedModelServer, text_reply
from tests.support.window import finish_turn, settle
from ui.window.main_window import MainWindow
from ui.window.quick_entry import QuickEntry, QuickEntryController


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


def drop_on(panel: QuickEntry, data: QMimeData) -> bool:
    at = QPointF(panel.rect().center())
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(
        at.toPoint(), actions, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(panel, enter)
    if not enter.isAccepted():
        return False
    drop = QDropEvent(at, actions, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(panel, drop)
    return True


def ready(panel: QuickEntry, count: int) -> bool:
    chips = panel.composer.chips
    return len(chips) == count and all(chip.ready or chip.error for chip in chips)


def test_dropped_and_pasted_files_go_with_the_message_to_a_new_chat(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    quick: QuickEntryController,
    model_server: ScriptedModelServer,
    tmp_path: Path,
) -> None:
    window, panel = quick.window, quick.panel
    window.workspace.live.set_mode(Mode.AUTONOMOUS)
    quick.toggle()
    assert panel.isVisible() and panel.mode_label.text() == "Mode: Autonomous"
    image, pdf, _notes = make_files(tmp_path)
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(image)), QUrl.fromLocalFile(str(pdf))])
    assert drop_on(panel, data)
    pasted = QImage(32, 24, QImage.Format.Format_RGB32)
    pasted.fill(QColor("orange"))
    QGuiApplication.clipboard().setImage(pasted)
    panel.composer.editor.paste()
    settle(aloop, lambda: ready(panel, 3), "the chips")
    model_server.enqueue(text_reply("Two images and a PDF."))
    qtbot.keyClicks(panel.composer.editor, "What are these?")
    qtbot.keyClick(panel.composer.editor, Qt.Key.Key_Return)
    finish_turn(aloop, window)
    assert not panel.isVisible() and panel.composer.chips == []
    content = model_server.message_requests[0]["messages"][-1]["content"]
    assert [part["type"] for part in content] == ["image", "document", "image", "text"]
    assert content[-1]["text"] == "What are these?"
    assert "Two images and a PDF." in seen.text(window.thread)


def test_enter_sends_to_the_latest_chat_when_set_and_esc_only_hides(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    quick: QuickEntryController,
    model_server: ScriptedModelServer,
) -> None:
    window, panel = quick.window, quick.panel
    model_server.enqueue(text_reply("First."), text_reply("Second."))
    quick.toggle()
    qtbot.keyClicks(panel.composer.editor, "one")
    qtbot.keyClick(panel.composer.editor, Qt.Key.Key_Return)
    finish_turn(aloop, window)
    first = window.current_session_id
    window.new_chat()  # the person moved on in the window

    settings = window.workspace.settings.model_copy(deep=True)
    settings.general.quick_entry_target = "latest"
    window.workspace.live.apply(settings)
    quick.toggle()
    qtbot.keyClicks(panel.composer.editor, "two")
    qtbot.keyClick(panel.composer.editor, Qt.Key.Key_Escape)
    assert not panel.isVisible() and len(model_server.message_requests) == 1
    quick.toggle()
    assert panel.composer.text() == "two"  # hidden, not thrown away
    qtbot.keyClick(panel.composer.editor, Qt.Key.Key_Return)
    finish_turn(aloop, window)
    assert window.current_session_id == first
    assert len(window.workspace.store.sessions()) == 1
