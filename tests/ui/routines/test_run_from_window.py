"""Running routines from the window (offscreen, the real window and the scripted model): the
sidebar's Routines section lists them with what keeps one from running, Run asks for the
parameters and opens the run's chat "▶ NAME" whose cards stream as in any chat, the window's
Stop stops it, errors are said, and a run that healed offers Update Routine."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from desktop.routines.model import Routine
from tests.support import seen
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.routines import NAME, TASK, record
from tests.support.window import settle
from ui.routines.section import EMPTY, NOT_KEPT_TIP
from ui.window.main_window import MainWindow

RUN_TITLE = f"▶ {NAME}"


def effects_read(server: ScriptedModelServer, request: int) -> list[str]:
    """The `Effect:` lines of every tool result the model read in request `request`, in order
    ("Effect: none" as "none")."""
    lines: list[str] = []
    for message in server.message_requests[request]["messages"]:
        if not isinstance(message["content"], list):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_result":
                text = "\n".join(part["text"] for part in block["content"])
                if "Effect:" in text:
                    lines.extend(text.split("Effect:", 1)[1].strip().splitlines())
    return lines


def run_ended(aloop, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    settle(aloop, lambda: not window.workspace.routines.running(), "the run's end")
    settle(aloop, lambda: not window.conversations.running, "the run's turn")


def rows(window: MainWindow) -> list[tuple[str, str, str, bool]]:
    """Each routine as the section shows it: name, mark, Run's text, Run enabled."""
    section = window.routine_runs.section
    return [
        (
            row.name_label.text(),
            row.mark.text() if not row.mark.isHidden() else "",
            row.run_button.text(),
            row.run_button.isEnabled(),
        )
        for row in section.rows
    ]


def test_the_section_lists_routines_and_says_what_keeps_one_from_running(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    window: MainWindow,
    model_server: ScriptedModelServer,
) -> None:
    section = window.routine_runs.section
    assert section.names() == [] and section.empty.text() == EMPTY and section.empty.isVisible()
    record(qtbot, aloop, window, model_server)
    assert rows(window) == [(NAME, "", "▶ Run", True)]
    assert not section.empty.isVisible()

    # One file broken and one written outside Deskhand (not signed by it).
    folder = window.workspace.paths.routines
    (folder / "Broken.json").write_text("{", "utf-8")
    copied = json.loads((folder / f"{NAME}.json").read_text("utf-8"))
    copied.pop("signature")
    copied["name"] = "Copied"
    (folder / "Copied.json").write_text(json.dumps(copied), "utf-8")
    section.refresh()
    assert rows(window) == [
        ("Broken", "can't read", "▶ Run", False),
        ("Copied", "not kept", "▶ Run", True),
        (NAME, "", "▶ Run", True),
    ]
    broken, copied_row = section.row("Broken"), section.row("Copied")
    assert broken is not None and copied_row is not None
    assert broken.mark.toolTip() == (
        "The routine file “Broken.json” cannot be read (not JSON: line 1). Fix or remove it in "
        "the routines folder, or export the routine again."
    )
    assert copied_row.mark.toolTip() == NOT_KEPT_TIP

    # Run on the one not kept: the keep sheet asks, the person cancels, the window says why.
    asked: list[str] = []

    async def cancel_keep(routine: Routine) -> bool:
        asked.append(routine.name)
        return False

    window.workspace.routines.ask_keep = cancel_keep
    before = len(window.workspace.store.sessions())
    qtbot.mouseClick(copied_row.run_button, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: window.routine_runs.form is not None, "the run form")
    form = window.routine_runs.form
    assert form is not None
    qtbot.mouseClick(form.run_button, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: window.routine_runs.error_box is not None, "the error box")
    box = window.routine_runs.error_box
    assert box is not None and asked == ["Copied"]
    assert (box.text(), box.informativeText()) == (
        "Couldn't run “Copied”",
        "The routine “Copied” was changed or added outside Deskhand, and it runs only once you "
        "keep it: open Deskhand, choose it under Routines and press Keep after reading its "
        "steps.",
    )
    assert len(window.workspace.store.sessions()) == before  # no chat for a run that never was
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Ok), Qt.MouseButton.LeftButton)

    # Remove asks first; the file goes and the section follows.
    menu = section.menu_of("Copied")
    assert [action.text() for action in menu.actions()] == ["Remove…"]
    removing = section.confirm_remove("Copied")
    assert removing.text() == "Remove the routine “Copied”?"
    [remove] = [b for b in removing.buttons() if b.text() == "Remove"]
    qtbot.mouseClick(remove, Qt.MouseButton.LeftButton)
    assert not (folder / "Copied.json").exists()
    assert section.names() == ["Broken", NAME]


def test_run_asks_for_the_parameter_and_opens_its_chat_with_the_cards(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    window: MainWindow,
    model_server: ScriptedModelServer,
) -> None:
    recorded = record(qtbot, aloop, window, model_server)
    model_server.enqueue(text_reply("The field holds Grace."))
    requests = len(model_server.message_requests)
    row = window.routine_runs.section.row(NAME)
    assert row is not None
    qtbot.mouseClick(row.run_button, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: window.routine_runs.form is not None, "the run form")
    form = window.routine_runs.form
    assert form is not None and form.windowTitle() == f"Run “{NAME}”"
    field = form.fields["who"]
    assert field.text() == "Ada"  # the recorded text is the default

    # An empty value is said beside the field, and the form stays.
    field.clear()
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert (
        form.isVisible() and form.problem.text() == f"The routine “{NAME}” needs a value for who."
    )
    qtbot.keyClicks(field, "Grace")
    qtbot.keyClick(field, Qt.Key.Key_Return)  # Enter runs

    settle(aloop, lambda: window.windowTitle() == f"{RUN_TITLE} — Deskhand", "the run's chat")
    assert window.sessions.titles()[0] == RUN_TITLE
    run_ended(aloop, window)
    assert recorded.field.value == "Grace" and recorded.notebook.lines == ["met Ada"]
    # One request: the answer. The steps ran without the model, which read their effects.
    assert len(model_server.message_requests) == requests + 1
    assert effects_read(model_server, -1) == ['~ textbox "Name": "" → "Grace"']
    assert seen.card_texts(window) == [
        (
            "Field: type",
            "into Name",
            'Typed: the field holds "Grace"',
            'Textbox "Name" now holds "Grace"',
            "",
            0,
        ),
        (
            "Notebook: write",
            "'met Ada'",
            "Not confirmed",
            "This tool does not read back what it did.",
            "Wrote line 1.",
            0,
        ),
    ]
    shown = seen.text(window.thread)
    assert shown.startswith(TASK.replace("Ada", "Grace"))
    assert "The field holds Grace." in shown
    assert rows(window) == [(NAME, "", "▶ Run", True)]
    run_chat = window.current_session_id
    window.open_session(recorded.chat_id)
    menu = window.routine_runs.section.menu_of(NAME)
    assert [action.text() for action in menu.actions()] == ["Show Last Run", "Remove…"]
    menu.actions()[0].trigger()
    assert window.current_session_id == run_chat


def test_the_windows_stop_stops_a_run_and_a_second_run_is_refused(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    window: MainWindow,
    model_server: ScriptedModelServer,
) -> None:
    recorded = record(qtbot, aloop, window, model_server, parameter=None)
    recorded.notebook.delay = 30.0  # the run's notebook step takes long enough to stop it
    recorded.notebook.started.clear()
    requests = len(model_server.message_requests)
    runs = window.routine_runs
    row = runs.section.row(NAME)
    assert row is not None
    qtbot.mouseClick(row.run_button, Qt.MouseButton.LeftButton)  # no parameter: no form
    settle(aloop, recorded.notebook.started.is_set, "the notebook step")
    assert window.windowTitle() == f"{RUN_TITLE} — Deskhand" and window.stop_action.isEnabled()
    assert rows(window) == [(NAME, "running", "Show", True)]

    # Run again while it runs: said, and nothing else starts.
    chats = len(window.workspace.store.sessions())
    aloop.run_until_complete(runs.start(NAME, {}))
    box = runs.error_box
    assert box is not None and box.informativeText() == (
        f"The routine “{NAME}” is already running (in the chat “{RUN_TITLE}”)."
    )
    assert len(window.workspace.store.sessions()) == chats
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Ok), Qt.MouseButton.LeftButton)

    window.stop_action.trigger()  # the window's usual Stop (Esc)
    run_ended(aloop, window)
    assert recorded.field.value == "Ada" and recorded.notebook.lines == []
    assert len(model_server.message_requests) == requests  # stopped before the answer
    [field_card, notebook_card] = seen.card_texts(window)
    assert field_card[2] == 'Typed: the field holds "Ada"'
    assert notebook_card[2] == "Stopped"
    assert rows(window) == [(NAME, "", "▶ Run", True)]
    assert not window.stop_action.isEnabled()


def test_a_run_that_healed_offers_update_routine_and_update_writes_the_file(
    qtbot,  # type: ignore[no-untyped-def]
    aloop,
    window: MainWindow,
    model_server: ScriptedModelServer,
) -> None:
    recorded = record(qtbot, aloop, window, model_server)
    recorded.field.read_only = True  # the field no longer takes text: step 1 must heal
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "name: Grace"})),
        text_reply("The field is read-only, so I noted the name instead."),
        text_reply("Ada is noted."),
    )
    runs = window.routine_runs
    bar = runs.update_bar
    row = runs.section.row(NAME)
    assert row is not None
    requests = len(model_server.message_requests)
    qtbot.mouseClick(row.run_button, Qt.MouseButton.LeftButton)
    settle(aloop, lambda: runs.form is not None, "the run form")
    assert runs.form is not None
    runs.form.fields["who"].setText("Grace")
    qtbot.mouseClick(runs.form.run_button, Qt.MouseButton.LeftButton)
    run_ended(aloop, window)
    assert recorded.notebook.lines == ["name: Grace", "met Ada"]
    # Step 1 alone went to the model, with what it did now and what it did when recorded;
    # then the model's step (a call and a line), and the answer: three requests in all.
    assert len(model_server.message_requests) == requests + 3
    assert effects_read(model_server, requests) == ["none: nothing on the page changed."]
    heal = model_server.message_requests[requests]["messages"][-1]["content"][-1]["text"]
    assert heal.splitlines()[1:5] == [
        "Step 1 of 2 could not be done as recorded: it changed nothing, where it had its effect "
        "before.",
        "The step's intent: Field: type into Name",
        "Its input in this run: {'text': 'Grace'}",
        'Its recorded effect: ~ textbox "Name": "" → "Ada"',
    ]
    run_chat = window.current_session_id
    assert bar.isVisible()
    assert bar.label.text() == (
        "This run healed 1 step: Claude did it again where the page or window had changed. "
        f"Update “{NAME}” to replay it without Claude next time."
    )
    assert not bar.diff.isVisible()
    qtbot.mouseClick(bar.changes_button, Qt.MouseButton.LeftButton)
    assert bar.diff.isVisible() and bar.changes_button.text() == "Hide Changes"
    assert bar.changes() == [
        "@@ -1,2 +1,2 @@",
        '-Field: type into Name {"text": "{{who}}"}',
        '+Notebook: write \'name: Grace\' {"text": "name: {{who}}"}',
        ' Notebook: write \'met Ada\' {"text": "met Ada"}',
    ]

    # The bar belongs to the run's chat: another chat does not show it.
    window.open_session(recorded.chat_id)
    assert not bar.isVisible()
    assert run_chat is not None
    window.open_session(run_chat)
    assert bar.isVisible()

    qtbot.mouseClick(bar.update_button, Qt.MouseButton.LeftButton)
    assert not bar.isVisible()
    saved: dict[str, Any] = json.loads(
        (window.workspace.paths.routines / f"{NAME}.json").read_text("utf-8")
    )
    assert [(step["member"], step["input"]) for step in saved["steps"]] == [
        ("notebook", {"text": "name: {{who}}"}),  # the run's value is the parameter again
        ("notebook", {"text": "met Ada"}),
    ]
    assert window.workspace.routines.load(NAME).kept  # written by Deskhand: signed
    assert window.statusBar().currentMessage() == (
        f"Updated “{NAME}”: its next run replays the healed steps."
    )

    # The next run replays the healed step, the parameter's default filled in: the model
    # writes only the answer.
    model_server.enqueue(text_reply("Ada is noted again."))
    requests = len(model_server.message_requests)
    aloop.run_until_complete(runs.start(NAME, {}))
    run_ended(aloop, window)
    assert len(model_server.message_requests) == requests + 1
    assert recorded.notebook.lines[-2:] == ["name: Ada", "met Ada"]
    assert not bar.isVisible()
