"""A chat reads the same reopened as it did live: replies, cards, images, a denial, failed turns."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image
from PySide6.QtCore import Qt

from desktop.chat.events import (
    MessageCommitted,
    MessageStarted,
    PromptAdded,
    TextDelta,
    TurnFailed,
)
from desktop.system.paths import DataPaths
from desktop.system.settings.permissions import Mode
from desktop.system.store import Store
from desktop.workspace import Workspace
from tests.support import seen
from tests.support.model_server import (
    Hang,
    HttpError,
    StreamError,
    ToolUse,
    text_reply,
    tool_reply,
)
from tests.support.sample_tools import NotebookTool
from tests.support.window import finish_turn, settle, type_and_send
from tools.base import Risk, ToolImage
from ui.thread.view import ThreadView
from ui.window.main_window import MainWindow

ANSWER = """Noted **milk**. You said no to eggs, so I left them out.

- milk: written
- eggs: not written

```text
notebook: 1 line
```"""


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (30, 140, 90)).save(out, format="PNG")
    return out.getvalue()


def answer_sheets(qtbot, aloop, window: MainWindow, answers: list[str]) -> None:  # type: ignore[no-untyped-def]
    for answer in answers:
        settle(aloop, lambda: window.approval_sheet is not None, "the approval sheet")
        sheet = window.approval_sheet
        assert sheet is not None
        button = sheet.allow_once if answer == "allow" else sheet.deny
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        settle(aloop, lambda s=sheet: window.approval_sheet is not s, "the sheet to close")


def test_a_reopened_chat_shows_what_was_shown_live(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow, workspace: Workspace, model_server, aloop
) -> None:
    notebook = NotebookTool(
        risk=Risk.CHANGE, image=ToolImage(data=png(64, 48), width=64, height=48)
    )
    workspace.registry.add(notebook)
    workspace.live.set_mode(Mode.CHANGES)

    # A turn of text, calls (one allowed, with its image, one denied, one unknown) and an answer.
    model_server.enqueue(
        tool_reply(
            ToolUse(name="notebook", input={"text": "milk"}),
            ToolUse(name="notebook", input={"text": "eggs"}),
            text="Let me note that.",
        ),
        tool_reply(ToolUse(name="teleport", input={"to": "the shop"})),
        text_reply(ANSWER),
    )
    type_and_send(qtbot, window, "Note milk and eggs")
    answer_sheets(qtbot, aloop, window, ["allow", "deny"])
    finish_turn(aloop, window)

    # A turn that fails mid-reply, then is retried and answered.
    model_server.enqueue(StreamError(text="Half an answer"))
    type_and_send(qtbot, window, "Anything else?")
    finish_turn(aloop, window)
    [failed] = window.thread.error_cards()
    model_server.enqueue(text_reply("That is all."))
    assert failed.retry_button is not None
    qtbot.mouseClick(failed.retry_button, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)

    # A reply stopped while it was written, and one stopped before it began.
    model_server.enqueue(Hang(text="Let me think about it"))
    type_and_send(qtbot, window, "Think it over")
    settle(aloop, lambda: "Let me think" in seen.text(window.thread), "the reply")
    qtbot.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)  # it is Stop now
    finish_turn(aloop, window)
    asked = len(model_server.message_requests)
    model_server.enqueue(Hang())
    type_and_send(qtbot, window, "Never mind")
    settle(aloop, lambda: len(model_server.message_requests) > asked, "the request")
    qtbot.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)

    # A reply stopped while its first call runs: the second never starts.
    notebook.delay = 30
    notebook.started.clear()
    model_server.enqueue(
        tool_reply(
            ToolUse(name="notebook", input={"text": "bread"}),
            ToolUse(name="notebook", input={"text": "jam"}),
        )
    )
    type_and_send(qtbot, window, "Add bread and jam")
    answer_sheets(qtbot, aloop, window, ["allow"])
    settle(aloop, notebook.started.is_set, "the first call")
    qtbot.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)

    # A last turn that fails before any text: its card is the chat's last word.
    model_server.enqueue(HttpError(status=401, type="authentication_error"))
    type_and_send(qtbot, window, "Thanks")
    finish_turn(aloop, window)

    live = seen.items(window.thread)
    kinds = [item[0] for item in live]
    assert kinds == [
        "you",
        "claude",
        "run",
        "claude",
        "you",
        "claude",
        "error",
        "claude",
        "you",
        "claude",
        "you",
        "notice",
        "you",
        "run",
        "notice",
        "you",
        "error",
    ], live
    run = live[2]
    assert run[1:4] == (
        "3 steps",
        "Notebook, teleport",
        "1 failed · 1 denied by you · 1 not confirmed",
    )
    steps = run[4]
    assert [(step[1], step[4]) for step in steps] == [
        ("Notebook: write", "Not confirmed"),
        ("Notebook: write", "You denied this"),
        ("teleport", "No such tool"),
    ]
    assert steps[0][3] == "1 image" and len(steps[0][10]) == 1  # the allowed call's image
    _, partial, marker = live[5]
    assert (partial, marker) == (
        "Half an answer",
        "⚠ Interrupted: this reply did not finish",
    )
    # The retried card keeps its words and no longer offers Retry; the last one does.
    assert live[6][3] == [] and live[-1][3] == ["Retry", "Open Settings"]
    assert "milk: written" in live[3][1] and "notebook: 1 line" in live[3][1]
    assert live[9] == ("claude", "Let me think about it", "■ Stopped")
    assert live[11] == ("notice", "stopped", "Stopped")
    stopped_run = live[13]
    assert stopped_run[1:4] == ("2 steps", "Notebook", "2 stopped")
    # The call that never started has its card too (not an unnamed one), live and reopened.
    assert [(step[1][:9], step[4]) for step in stopped_run[4]] == [("Notebook:", "Stopped")] * 2
    assert live[14] == ("notice", "stopped", "Stopped")

    # Reopened: a new window on the same data, as after a restart.
    reopened = MainWindow(workspace)
    qtbot.addWidget(reopened)
    reopened.show()
    reopened.open_session(window.current_session_id)
    thread = reopened.thread
    if thread.loading_history:
        with qtbot.waitSignal(thread.history_loaded, timeout=10_000):
            pass
    assert seen.items(thread) == live


def test_a_history_file_from_before_turn_ends_were_kept_keeps_them_from_now_on(  # type: ignore[no-untyped-def]
    qtbot, data_dir: Path, api_env, aloop
) -> None:
    database = DataPaths.for_data_dir(data_dir).database
    old = Store.open(database)
    old.add_message(old.create_session("Old chat").id, "user", [{"type": "text", "text": "Hi"}])
    old._db.execute("DROP TABLE turn_ends")  # as the file was before they were kept
    old.close()
    workspace = Workspace.open(data_dir)
    try:
        api_env.enqueue(HttpError(status=401, type="authentication_error"))
        first = MainWindow(workspace)
        qtbot.addWidget(first)
        first.show()
        type_and_send(qtbot, first, "Hello?")
        finish_turn(aloop, first)
        live = seen.items(first.thread)
        assert [item[0] for item in live] == ["you", "error"]
        assert live[1][1] == "The API key was not accepted"

        again = MainWindow(workspace)
        qtbot.addWidget(again)
        again.show()
        again.open_session(first.current_session_id)
        assert seen.items(again.thread) == live
        assert [s.title for s in workspace.store.sessions()] == ["Hello?", "Old chat"]
    finally:
        workspace.store.close()


def test_history_shown_while_a_reply_streams_keeps_each_where_it_belongs(qtbot) -> None:  # type: ignore[no-untyped-def]
    sid = 7
    thread = ThreadView(sid)
    qtbot.addWidget(thread)
    thread.resize(800, 600)
    thread.show()
    thread.set_busy(True)
    thread.handle(PromptAdded(session_id=sid, text="Go on"))
    thread.handle(MessageStarted(session_id=sid))
    thread.handle(TextDelta(session_id=sid, text="Streaming now"))
    thread.handle(TextDelta(session_id=sid, text=", still"))  # waits for the next frame
    older = [
        PromptAdded(session_id=sid, text="Earlier question"),
        TextDelta(session_id=sid, text="Earlier answer."),
        MessageCommitted(session_id=sid, message_id=2, role="assistant", status="complete"),
        TurnFailed(session_id=sid, error_kind="overloaded", title="Busy", detail="Try again."),
    ]
    thread.load([older])
    thread.handle(TextDelta(session_id=sid, text=" and done."))
    thread.handle(
        MessageCommitted(session_id=sid, message_id=4, role="assistant", status="complete")
    )
    assert [item[:2] for item in seen.items(thread)] == [
        ("you", "Earlier question"),
        ("claude", "Earlier answer."),
        ("error", "Busy"),
        ("you", "Go on"),
        ("claude", "Streaming now, still and done."),
    ]
    # Only the newest card would offer Retry: this one was answered by the chat below it.
    [card] = thread.error_cards()
    assert card.retired
