"""Saving a finished chat as a routine from the window, and keeping a routine Deskhand did not
write: the save sheet (steps in the cards' words, typed texts as parameters), the keep sheet
before an edited file runs, and File → Import / Export Routine…. The chats are real turns of the
scripted model through real function tools."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMenu

from desktop.routines.book import RoutineError
from desktop.routines.record import NOT_FINISHED
from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sample_tools import FieldTool, NotebookTool
from tests.support.window import finish_turn, settle, type_and_send
from ui.sheets.routines.keep import KeepRoutineSheet
from ui.sheets.routines.save import SaveRoutineSheet
from ui.window.main_window import MainWindow

TASK = "Type Ada into the name field and note lunch"
TYPED = 'Typed.\nEffect:\n~ textbox "Name": "" → "Ada"'


@pytest.fixture
def tools(workspace: Workspace) -> tuple[FieldTool, NotebookTool]:
    field, notebook = FieldTool(), NotebookTool()
    workspace.registry.add(field)
    workspace.registry.add(notebook)
    workspace.live.set_mode(Mode.AUTONOMOUS)
    return field, notebook


def finished_chat(qtbot, aloop, window: MainWindow, model: ScriptedModelServer) -> int:  # type: ignore[no-untyped-def]
    """A task done for real: the field typed into, a note written, then Claude's answer."""
    model.enqueue(
        tool_reply(ToolUse(name="field", input={"text": "Ada"})),
        tool_reply(ToolUse(name="notebook", input={"text": "lunch"})),
        text_reply("Ada is in the name field, and lunch is noted."),
    )
    type_and_send(qtbot, window, TASK)
    finish_turn(aloop, window)
    # What the model read back from the field: its real effect, not the tool's word.
    typed = model.message_requests[1]["messages"][-1]["content"][0]
    assert typed["content"][0]["text"] == TYPED
    assert window.current_session_id is not None
    return window.current_session_id


def chat_menu(window: MainWindow, session_id: int) -> QMenu:
    """The sidebar's context menu of a chat, as a right-click opens it."""
    sessions = window.sessions
    [item] = [i for i in sessions.session_items() if i.data(Qt.ItemDataRole.UserRole) == session_id]
    where: QPoint = sessions.list.visualItemRect(item).center()
    sessions._context_menu(where)
    assert sessions.menu is not None
    return sessions.menu


def choose(menu: QMenu, title: str) -> None:
    [action] = [a for a in menu.actions() if a.text() == title]
    action.trigger()
    menu.close()


def open_sheet(window: MainWindow) -> SaveRoutineSheet:
    sheet = window.routine_files.save_sheet
    assert sheet is not None and sheet.isVisible()
    return sheet


def saved_file(workspace: Workspace, name: str) -> dict[str, Any]:
    return json.loads((workspace.paths.routines / f"{name}.json").read_text("utf-8"))


def test_a_finished_chat_saved_from_its_menu_with_a_parameter(
    qtbot, aloop, window: MainWindow, workspace: Workspace, model_server, tools
) -> None:  # type: ignore[no-untyped-def]
    session_id = finished_chat(qtbot, aloop, window, model_server)

    # The last turn's bar offers it beside Regenerate, and opens the same sheet.
    bar = window.thread.turn_actions
    assert bar is not None and bar.plain_text() == "↻ Regenerate  Save as Routine…"
    qtbot.mouseClick(bar.save_routine_button, Qt.MouseButton.LeftButton)
    open_sheet(window).reject()

    choose(chat_menu(window, session_id), "Save as Routine…")
    sheet = open_sheet(window)
    assert sheet.name.text() == workspace.store.session(session_id).title  # type: ignore[union-attr]
    assert [box.text() for box in sheet.step_boxes] == [
        "1. Field: type into Name",
        "2. Notebook: write 'lunch'",
    ]
    assert [label.text() for label in sheet.plan] == ["No sites or apps: its steps need no plan."]
    assert [row.label.text() for row in sheet.typed_rows] == ["“Ada”", "“lunch”"]
    assert sheet.answer.isChecked()  # the chat ended with Claude's answer

    # Leaving the note out leaves its text nothing to stand for; putting it back restores it.
    sheet.step_boxes[1].setChecked(False)
    assert not sheet.typed_rows[1].field.isEnabled()
    sheet.step_boxes[1].setChecked(True)

    sheet.name.setText("Name lunch")
    qtbot.keyClicks(sheet.typed_rows[0].field, "who")
    sheet.answer.setChecked(False)
    assert sheet.save_button is not None
    qtbot.mouseClick(sheet.save_button, Qt.MouseButton.LeftButton)
    assert not sheet.isVisible()
    assert window.statusBar().currentMessage() == "Saved the routine “Name lunch”."

    routine = saved_file(workspace, "Name lunch")
    assert routine["schema"] == "deskhand.routine/1"
    assert routine["task"] == TASK
    assert routine["parameters"] == [{"name": "who", "default": "Ada"}]
    assert [step["input"] for step in routine["steps"]] == [{"text": "{{who}}"}, {"text": "lunch"}]
    assert routine["steps"][0]["effect"] == ['~ textbox "Name": "" → "Ada"']
    assert routine["answer"] is False
    assert routine["signature"]  # Deskhand wrote it: it runs without the keep sheet
    assert workspace.routines.load("Name lunch").kept

    # Saving again under a name in use says so in the sheet, and keeps what was chosen.
    again = window.routine_files.save(session_id)
    assert again is not None
    again.name.setText("Name lunch")
    again.typed_rows[1].field.setText("meal")
    assert again.save_button is not None
    qtbot.mouseClick(again.save_button, Qt.MouseButton.LeftButton)
    assert again.isVisible()
    assert again.error.text() == (
        "There is a routine named “Name lunch” already: choose another name."
    )
    assert again.typed_rows[1].field.text() == "meal"
    again.name.setText("bad/name")
    qtbot.mouseClick(again.save_button, Qt.MouseButton.LeftButton)
    assert again.isVisible() and again.error.text().startswith("“bad/name” cannot be a routine")
    again.name.setText("Lunch again")
    again.typed_rows[1].field.setText("2nd")
    qtbot.mouseClick(again.save_button, Qt.MouseButton.LeftButton)
    assert again.isVisible()
    assert again.error.text() == "“2nd” cannot be a parameter's name: use letters, digits and _."
    again.typed_rows[0].field.setText("meal")  # one name for two texts
    again.typed_rows[1].field.setText("meal")
    qtbot.mouseClick(again.save_button, Qt.MouseButton.LeftButton)
    assert again.error.text() == "“meal” names two different texts: each parameter stands for one."
    again.reject()
    assert [entry.name for entry in workspace.routines.entries()] == ["Name lunch"]


def test_a_chat_still_working_shows_why_and_has_no_save_button(
    qtbot, aloop, window: MainWindow, workspace: Workspace, model_server, tools
) -> None:  # type: ignore[no-untyped-def]
    # A chat whose reply was cut off by the token limit never finished its task.
    model_server.enqueue(text_reply("Ada is", stop_reason="max_tokens"))
    type_and_send(qtbot, window, TASK)
    finish_turn(aloop, window)
    window.menu_actions["routine_files.save_current"].trigger()  # File → Save as Routine…
    sheet = open_sheet(window)
    assert sheet.refusal.text() == NOT_FINISHED
    assert sheet.save_button is None
    assert not workspace.paths.routines.exists()


def test_an_edited_routine_runs_only_once_kept_on_the_sheet(
    qtbot, aloop, window: MainWindow, workspace: Workspace, model_server, tools
) -> None:  # type: ignore[no-untyped-def]
    field, notebook = tools
    session_id = finished_chat(qtbot, aloop, window, model_server)
    draft = workspace.routines.draft(session_id)
    workspace.routines.save(draft, "Name lunch", {"who": "Ada"}, answer=False)
    # Another program changes what the routine types.
    path = workspace.paths.routines / "Name lunch.json"
    document = json.loads(path.read_text("utf-8"))
    document["parameters"][0]["default"] = "Mallory"
    path.write_text(json.dumps(document), "utf-8")
    chats = len(workspace.store.sessions())

    def start() -> asyncio.Future[int]:
        return asyncio.ensure_future(workspace.routines.start("Name lunch"), loop=aloop)

    def keep_sheet() -> KeepRoutineSheet:
        settle(aloop, lambda: window.routine_files.keep_sheet is not None, "the keep sheet")
        sheet = window.routine_files.keep_sheet
        assert sheet is not None and sheet.isVisible()
        return sheet

    running = start()
    sheet = keep_sheet()
    assert [label.text() for label in sheet.steps] == [
        "1. Field: type into Name",
        "2. Notebook: write 'lunch'",
    ]
    assert sheet.task.text() == TASK
    assert sheet.cancel.isDefault()
    body = "\n".join(label.text() for label in sheet.findChildren(type(sheet.task)))
    assert 'field · field {"text": "{{who}}"}' in body
    assert "who (default “Mallory”)" in body
    qtbot.mouseClick(sheet.cancel, Qt.MouseButton.LeftButton)
    with pytest.raises(RoutineError) as refused:
        aloop.run_until_complete(running)
    assert refused.value.code == "refused"
    assert len(workspace.store.sessions()) == chats  # no run's chat was opened
    assert field.value == "Ada" and notebook.lines == ["lunch"]  # nothing ran
    assert not workspace.routines.load("Name lunch").kept

    ran = asyncio.ensure_future(workspace.routines.run("Name lunch"), loop=aloop)
    qtbot.mouseClick(keep_sheet().keep, Qt.MouseButton.LeftButton)
    report = aloop.run_until_complete(ran)
    assert (report.status, report.replayed, report.model_requests) == ("done", 2, 0)
    assert field.value == "Mallory" and notebook.lines == ["lunch", "lunch"]
    assert workspace.routines.load("Name lunch").kept  # kept: signed as it now is


def test_import_shows_the_keep_sheet_and_export_writes_the_file(
    qtbot, aloop, window: MainWindow, workspace: Workspace, model_server, tools, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    session_id = finished_chat(qtbot, aloop, window, model_server)
    workspace.routines.save(workspace.routines.draft(session_id), "Name lunch", {"who": "Ada"})

    # File → Export Routine…: which routine, then where.
    window.menu_actions["routine_files.export_routine"].trigger()
    picker = window.routine_files.picker
    assert picker is not None and picker.comboBoxItems() == ["Name lunch"]
    picker.setTextValue("Name lunch")
    picker.accept()
    dialog = window.routine_files.file_dialog
    assert dialog is not None and dialog.isVisible()
    exported = tmp_path / "shared.json"
    dialog.fileSelected.emit(str(exported))
    dialog.close()
    document = json.loads(exported.read_text("utf-8"))
    assert "signature" not in document  # a file from elsewhere is kept by the person, not signed
    assert document["steps"][0]["input"] == {"text": "{{who}}"}

    workspace.routines.remove("Name lunch")
    document["name"] = "Shared lunch"
    exported.write_text(json.dumps(document), "utf-8")

    # File → Import Routine…: the same keep sheet; Cancel keeps nothing, Keep saves it signed.
    window.menu_actions["routine_files.import_routine"].trigger()
    chooser = window.routine_files.file_dialog
    assert chooser is not None and chooser.isVisible() and chooser is not dialog
    chooser.fileSelected.emit(str(exported))
    chooser.close()
    sheet = window.routine_files.keep_sheet
    assert sheet is not None and sheet.isVisible()
    assert sheet.windowTitle() == "Keep routine"
    assert not sheet.replaces.isVisibleTo(sheet)
    qtbot.keyClick(sheet, Qt.Key.Key_Escape)
    assert workspace.routines.entries() == []

    window.routine_files.read(exported)
    sheet = window.routine_files.keep_sheet
    assert sheet is not None
    qtbot.keyClick(sheet, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    [entry] = workspace.routines.entries()
    assert (entry.name, entry.kept) == ("Shared lunch", True)
    assert window.statusBar().currentMessage() == "Kept the routine “Shared lunch”."

    # Importing it again says it replaces the one kept.
    again = window.routine_files.read(exported)
    assert again is not None and again.replaces.isVisibleTo(again)
    assert again.replaces.text() == "Keeping it replaces your routine “Shared lunch”."
    again.reject()

    # A file that is not a routine is said on the status bar; no sheet opens.
    broken = tmp_path / "broken.json"
    broken.write_text("{", "utf-8")
    assert window.routine_files.read(broken) is None
    assert window.statusBar().currentMessage().startswith("The routine file “broken.json”")
