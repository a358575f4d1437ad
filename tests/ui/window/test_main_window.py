"""The main window end to end: offscreen Qt, the real AsyncAnthropic client, the scripted server."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox, QWidget

from desktop.chat.events import MessageCommitted, MessageStarted, TextDelta, TurnStarted
from desktop.workspace import Workspace
from tests.support import seen
from tests.support.model_server import (
    DropConnection,
    Hang,
    HttpError,
    Reply,
    StreamError,
    Text,
    ToolUse,
    Usage,
    text_reply,
    tool_reply,
)
from tests.support.turns import turn_log
from tests.support.waiting import wait_until
from tests.support.window import finish_turn, settle, type_and_send
from ui.thread.items import AssistantMessage, NoticeLine, TurnActions, UserBubble
from ui.thread.markdown.view import CodeBlockView, MarkdownView, ProseBlockView
from ui.thread.tool_card import ToolCard
from ui.thread.view import ThreadView
from ui.window.banners import NoticeBanner
from ui.window.main_window import MainWindow

REPLY = """# Packing list

Here is what to bring:

- a tent
- a **stove**

| Item | Weight |
|------|-------:|
| tent | 2.1 kg |
| stove | 0.4 kg |

```bash
echo ready
```

Have a good trip.
"""


def click_session(qtbot, window: MainWindow, row: int) -> None:  # type: ignore[no-untyped-def]
    sessions = window.sessions.list
    rect = sessions.visualItemRect(window.sessions.session_items()[row])  # under date headings
    qtbot.mouseClick(sessions.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def prose_views(thread: ThreadView) -> list[ProseBlockView]:
    return thread.findChildren(ProseBlockView)


# -- sending and streaming ---------------------------------------------------------------


def test_a_sent_message_streams_back_as_markdown_with_usage(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop, monkeypatch
):
    frames: list[str] = []
    append = MarkdownView.append

    def recording(self: MarkdownView, text: str, **kwargs: bool) -> None:
        frames.append(text)
        append(self, text, **kwargs)

    monkeypatch.setattr(MarkdownView, "append", recording)
    model_server.enqueue(
        Reply(
            blocks=[Text(text=REPLY, chunk_size=6)],
            chunk_delay=0.01,
            usage=Usage(input_tokens=1234, output_tokens=567, cache_read_input_tokens=890),
        )
    )
    type_and_send(qtbot, window, "What should I pack?")

    thread = window.thread
    assert window.composer.editor.toPlainText() == ""
    first = thread.items()[0]
    assert isinstance(first, UserBubble) and first.plain_text() == "What should I pack?"
    assert window.composer.send_button.text() == "Stop"
    settle(aloop, lambda: "Packing list" in seen.text(thread), "the first words")

    finish_turn(aloop, window)
    # The reply arrived over ~0.4 s and was shown as it came, in several frames.
    assert len(frames) > 2 and "".join(frames) == REPLY
    html = "\n".join(view.text() for view in prose_views(thread))
    assert "<h1>Packing list</h1>" in html
    assert "<li><strong>a stove</strong></li>" not in html and "<strong>stove</strong>" in html
    [table] = [view for view in prose_views(thread) if "<table" in view.text()]
    assert table.isVisible() and table.height() > 3 * table.fontMetrics().height()
    [code] = thread.findChildren(CodeBlockView)
    assert code.block.code == "echo ready"
    assert "Have a good trip." in seen.text(thread)

    status = window.usage_label.text()
    assert "1,234 tokens in" in status and "567 out" in status and "890 cache read" in status
    sent = model_server.message_requests[-1]["messages"]
    assert sent[-1]["role"] == "user"
    assert sent[-1]["content"][-1]["text"] == "What should I pack?"
    assert window.composer.send_button.text() == "Send"
    assert window.sessions.titles() == ["What should I pack?"]


def test_shift_enter_inserts_a_newline_instead_of_sending(qtbot, window, model_server):  # type: ignore[no-untyped-def]
    editor = window.composer.editor
    qtbot.keyClicks(editor, "line one")
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(editor, "line two")
    assert editor.toPlainText() == "line one\nline two"
    assert turn_log(window.conversations).started == 0
    assert model_server.message_requests == []


def test_deltas_are_applied_per_frame_and_a_lump_is_paced(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    applied: list[str] = []
    original = MarkdownView.append

    def recording(self: MarkdownView, text: str, **kwargs: bool) -> None:
        applied.append(text)
        original(self, text, **kwargs)

    monkeypatch.setattr(MarkdownView, "append", recording)
    thread = ThreadView(1)
    qtbot.addWidget(thread)
    thread.show()
    thread.handle(TurnStarted(session_id=1))
    thread.handle(MessageStarted(session_id=1))
    for _ in range(500):
        thread.handle(TextDelta(session_id=1, text="word "))
    assert applied == ["word "], "only the first delta shows at once; the rest waits for a frame"
    qtbot.waitUntil(lambda: "".join(applied) == "word " * 500)
    # The lump that arrived at once is let out over a few frames, not in one jump.
    assert 4 <= len(applied) <= 40
    assert max(len(text) for text in applied[1:]) < len("word ") * 500 / 2


def test_the_end_of_a_message_shows_all_waiting_text_at_once(qtbot) -> None:  # type: ignore[no-untyped-def]
    thread = ThreadView(1)
    qtbot.addWidget(thread)
    thread.show()
    thread.handle(MessageStarted(session_id=1))
    thread.handle(TextDelta(session_id=1, text="First. "))
    for _ in range(300):
        thread.handle(TextDelta(session_id=1, text="more "))
    thread.handle(MessageCommitted(session_id=1, message_id=1, role="assistant", status="complete"))
    assert seen.text(thread) == "First. " + "more " * 299 + "more"


def test_new_text_is_followed_only_from_the_bottom(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    long_reply = "\n\n".join(f"Paragraph {n}: " + "word " * 30 for n in range(80))
    model_server.enqueue(Reply(blocks=[Text(text=long_reply, chunk_size=40)], chunk_delay=0.005))
    type_and_send(qtbot, window, "Write a lot")
    bar = window.thread.verticalScrollBar()
    settle(aloop, lambda: bar.maximum() > 300, "the thread to overflow")
    # Following lags a frame behind the growth (it scrolls at the start of the next one).
    settle(aloop, lambda: bar.maximum() - bar.value() < 150, "the view to follow the text")
    # The person scrolls up to reread: new text must not pull the view away.
    bar.setValue(0)
    grown = bar.maximum()
    settle(aloop, lambda: bar.maximum() > grown + 300, "more text below")
    assert bar.value() == 0
    finish_turn(aloop, window)
    assert bar.value() == 0


def test_the_end_of_a_reply_is_in_view(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    long_reply = "\n\n".join(f"Paragraph {n}: " + "word " * 30 for n in range(40))
    model_server.enqueue(Reply(blocks=[Text(text=long_reply, chunk_size=40)], chunk_delay=0.002))
    type_and_send(qtbot, window, "Write a lot")
    finish_turn(aloop, window)
    bar = window.thread.verticalScrollBar()
    assert bar.maximum() > 300 and bar.value() == bar.maximum()


# -- stopping ----------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["escape", "stop button"])
def test_stop_keeps_the_partial_reply_and_the_next_turn_works(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop, how
):
    model_server.enqueue(Hang(text="partial answer"), text_reply("Second answer."))
    editor = window.composer.editor
    type_and_send(qtbot, window, "Tell me a long story")
    settle(aloop, lambda: "partial answer" in seen.text(window.thread), "the partial text")

    # While it runs, Enter does not send a second message in this session.
    qtbot.keyClicks(editor, "Another")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert editor.toPlainText() == "Another"
    assert window.composer.send_button.text() == "Stop"
    if how == "escape":
        qtbot.keyClick(editor, Qt.Key.Key_Escape)
    else:
        qtbot.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)

    assert turn_log(window.conversations).last.stopped
    [reply] = [item for item in window.thread.items() if isinstance(item, AssistantMessage)]
    assert reply.body.markdown() == "partial answer"
    assert reply.status == "stopped" and reply.marker.isVisible()
    assert "Stopped" in seen.text(window.thread)
    assert window.composer.send_button.text() == "Send"
    assert len(model_server.message_requests) == 1

    editor.clear()
    type_and_send(qtbot, window, "Go on")
    finish_turn(aloop, window)
    assert "Second answer." in seen.text(window.thread)
    messages = model_server.message_requests[-1]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0]["content"][-1]["text"] == "Tell me a long story"
    assert messages[1]["content"] == [{"type": "text", "text": "partial answer"}]
    assert messages[2]["content"][-1]["text"] == "Go on"


def test_switching_sessions_while_a_reply_runs(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    model_server.enqueue(Hang(text="slow partial"), text_reply("Quick answer."))
    type_and_send(qtbot, window, "Slow question")
    settle(aloop, lambda: "slow partial" in seen.text(window.thread), "the slow reply")
    slow_session = window.current_session_id

    qtbot.mouseClick(window.sessions.new_chat_button, Qt.MouseButton.LeftButton)
    assert window.composer.send_button.text() == "Send"
    type_and_send(qtbot, window, "Quick question")
    finish_turn(aloop, window)
    assert "Quick answer." in seen.text(window.thread)
    assert "slow partial" not in seen.text(window.thread)

    click_session(qtbot, window, window.sessions.session_ids().index(slow_session))
    assert window.current_session_id == slow_session
    assert "slow partial" in seen.text(window.thread)
    assert window.composer.send_button.text() == "Stop"
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Escape)
    settle(aloop, lambda: not window.is_running(slow_session), "the slow reply to stop")
    assert "Stopped" in seen.text(window.thread)


# -- errors ------------------------------------------------------------------------------

FAILURES = [
    pytest.param(
        HttpError(status=401, type="authentication_error", message="invalid x-api-key"),
        "The API key was not accepted",
        id="401-invalid-key",
    ),
    pytest.param(
        HttpError(
            status=429, type="rate_limit_error", message="slow down", headers={"retry-after": "7"}
        ),
        "Rate limit reached",
        id="429-rate-limit",
    ),
    pytest.param(
        StreamError(text="Half an answer", type="overloaded_error", message="Overloaded"),
        "Claude is overloaded",
        id="529-mid-stream",
    ),
    pytest.param(DropConnection(text="Half an answer"), "Connection lost", id="dropped"),
    pytest.param(
        HttpError(status=404, type="not_found_error", message="model: claude-nope"),
        "Model not found",
        id="404-model",
    ),
    pytest.param(
        HttpError(
            status=400,
            type="invalid_request_error",
            message="Your credit balance is too low to access the Anthropic API.",
        ),
        "No credit left",
        id="400-credit",
    ),
    pytest.param(
        HttpError(status=402, type="billing_error", message="Payment required"),
        "No credit left",
        id="402-billing",
    ),
]


@pytest.mark.parametrize(("failure", "title"), FAILURES)
def test_each_error_shows_its_message_and_retry_answers(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop, failure, title
):
    model_server.enqueue(failure)
    type_and_send(qtbot, window, "Hello?")
    finish_turn(aloop, window)

    [card] = window.thread.error_cards()
    assert card.isVisible()
    assert card.title.text() == title
    assert card.detail.text()
    if isinstance(failure, HttpError) and failure.status == 429:
        assert "wait 7 s" in card.detail.text()
    if isinstance(failure, StreamError | DropConnection):
        # What arrived before the failure stays, marked as cut off.
        [partial] = [i for i in window.thread.items() if isinstance(i, AssistantMessage)]
        assert partial.body.markdown() == "Half an answer" and partial.status == "failed"
    if failure is FAILURES[0].values[0]:
        assert card.settings_button is not None and card.settings_button.isVisible()
    assert window.composer.send_button.text() == "Send"

    model_server.enqueue(text_reply("Back on track."))
    assert card.retry_button is not None and card.retry_button.isEnabled()
    qtbot.mouseClick(card.retry_button, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)
    assert "Back on track." in seen.text(window.thread)
    assert not card.retry_button.isEnabled()
    # Retry answers the stored question; it does not send it a second time.
    messages = model_server.message_requests[-1]["messages"]
    assert messages[0]["content"][-1]["text"] == "Hello?"
    assert [m for m in messages if m["role"] == "user"] == [messages[0]]


def test_a_reply_cut_at_max_tokens_says_so(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    model_server.enqueue(text_reply("This reply is cut", stop_reason="max_tokens"))
    type_and_send(qtbot, window, "Write an essay")
    finish_turn(aloop, window)
    [notice] = [item for item in window.thread.items() if isinstance(item, NoticeLine)]
    assert "limit" in notice.plain_text() and notice.isVisible()


# -- tools -------------------------------------------------------------------------------


def test_tool_calls_show_as_cards_between_the_replies(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    model_server.enqueue(
        tool_reply(ToolUse(name="open_app", input={"name": "Notes"}), text="Let me open Notes."),
        text_reply("Notes cannot be opened here."),
    )
    type_and_send(qtbot, window, "Open Notes")
    finish_turn(aloop, window)
    items = window.thread.items()
    assert [type(item) for item in items] == [
        UserBubble,
        AssistantMessage,
        ToolCard,
        AssistantMessage,
        TurnActions,  # Regenerate, under the last turn
    ]
    card = items[2]
    assert isinstance(card, ToolCard)
    assert card.title.text() == "open_app" and card.state.text() == "No such tool"
    assert "not available here" in card.note.text()  # the registry's answer, for a person
    assert "Notes cannot be opened here." in seen.text(window.thread)


# -- sessions ----------------------------------------------------------------------------


def test_restart_with_the_same_data_dir_shows_the_session(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop, data_dir
):
    model_server.enqueue(text_reply("Paris is the capital of **France**."))
    type_and_send(qtbot, window, "Capital of France?")
    finish_turn(aloop, window)
    window.close()

    reopened = Workspace.open(data_dir)
    try:
        second = MainWindow(reopened)
        qtbot.addWidget(second)
        second.show()
        assert second.sessions.titles() == ["Capital of France?"]
        click_session(qtbot, second, 0)
        text = seen.text(second.thread)
        assert "Capital of France?" in text and "Paris is the capital of France." in text
        # The status line shows the last turn's numbers from the store (scripted defaults).
        assert "10 tokens in  /  5 out" in second.usage_label.text()
    finally:
        reopened.store.close()


def test_reopening_renders_tool_cards_and_marks_unfinished_replies(qtbot, window, workspace):  # type: ignore[no-untyped-def]
    store = workspace.store
    sid = store.create_session("History").id
    store.add_message(sid, "user", [{"type": "text", "text": "Open my notes"}])
    store.add_message(
        sid,
        "assistant",
        [
            {"type": "text", "text": "Opening **Notes**."},
            {"type": "tool_use", "id": "toolu_1", "name": "open_app", "input": {"name": "Notes"}},
        ],
    )
    store.add_message(
        sid,
        "user",
        [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Notes opened."}],
    )
    store.add_message(sid, "assistant", [{"type": "text", "text": "Your notes"}], status="stopped")
    store.add_message(sid, "user", [{"type": "text", "text": "And now?"}])
    store.add_message(sid, "assistant", [{"type": "text", "text": "Half a"}], status="failed")
    window.sessions.refresh()
    click_session(qtbot, window, 0)

    items = window.thread.items()
    assert [type(item) for item in items] == [
        UserBubble,
        AssistantMessage,
        ToolCard,
        AssistantMessage,
        UserBubble,
        AssistantMessage,
        TurnActions,
    ]
    card = items[2]
    assert isinstance(card, ToolCard)
    assert card.state.text() == "Done" and card.outcome.text() == "Notes opened."
    assert '{"name": "Notes"}' in card.detail.text()
    assert [item.status for item in items if isinstance(item, AssistantMessage)] == [
        "complete",
        "stopped",
        "failed",
    ]


def test_a_long_session_opens_at_once_and_fills_in_above(qtbot, window, workspace):  # type: ignore[no-untyped-def]
    store = workspace.store
    sid = store.create_session("Long").id
    for n in range(60):
        store.add_message(sid, "user", [{"type": "text", "text": f"Question {n}"}])
        reply = f"Answer {n}. " + "A sentence of the answer, in Markdown. " * 40
        if n == 30:  # a turn with a tool call keeps its card and result together
            store.add_message(
                sid,
                "assistant",
                [{"type": "tool_use", "id": "toolu_30", "name": "notebook", "input": {}}],
            )
            store.add_message(
                sid, "user", [{"type": "tool_result", "tool_use_id": "toolu_30", "content": "ok"}]
            )
        store.add_message(sid, "assistant", [{"type": "text", "text": reply}])
    window.sessions.refresh()
    click_session(qtbot, window, 0)
    thread = window.thread
    # The newest turns are there at once; the older ones follow between frames.
    assert thread.loading_history
    assert "Answer 59." in seen.text(thread) and "Question 0" not in seen.text(thread)
    # The person scrolls up to read while the rest arrives: what they read stays put.
    bar = thread.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum() // 2)
    from_bottom = bar.maximum() - bar.value()
    with qtbot.waitSignal(thread.history_loaded, timeout=10_000):
        pass
    thread.flush()
    assert bar.maximum() - bar.value() == from_bottom
    text = seen.text(thread)
    positions = [text.index(f"Question {n}\n") for n in range(60)]
    assert positions == sorted(positions)  # in order, oldest at the top
    [card] = thread.findChildren(ToolCard)
    assert card.state.text() == "Done" and card.outcome.text() == "ok"
    assert text.index("Question 30") < text.index("ok") < text.index("Answer 30.")


def test_a_long_session_opens_at_its_end(qtbot, window, workspace):  # type: ignore[no-untyped-def]
    sid = workspace.store.create_session("Long").id
    for n in range(40):
        workspace.store.add_message(sid, "user", [{"type": "text", "text": f"Question {n}"}])
        text = f"Answer {n}. " + "More of the answer. " * 60
        workspace.store.add_message(sid, "assistant", [{"type": "text", "text": text}])
    window.sessions.refresh()
    click_session(qtbot, window, 0)
    with qtbot.waitSignal(window.thread.history_loaded, timeout=10_000):
        pass
    bar = window.thread.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 5_000 and bar.value() == bar.maximum())


def test_rename_and_delete_sessions(qtbot, window, workspace, model_server, aloop):  # type: ignore[no-untyped-def]
    model_server.enqueue(text_reply("One."), text_reply("Two."))
    type_and_send(qtbot, window, "First chat")
    finish_turn(aloop, window)
    first = window.current_session_id
    qtbot.mouseClick(window.sessions.new_chat_button, Qt.MouseButton.LeftButton)
    type_and_send(qtbot, window, "Second chat")
    finish_turn(aloop, window)
    sessions = window.sessions
    assert sessions.titles() == ["Second chat", "First chat"]

    # Rename: double-click the title (QTest's double-click lacks the first click), type, Enter.
    rect = sessions.list.visualItemRect(sessions.session_items()[1])
    qtbot.mouseClick(sessions.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(sessions.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    editor = sessions.list.findChild(QLineEdit)
    assert editor is not None and editor.isVisible()
    editor.selectAll()
    qtbot.keyClicks(editor, "Trip planning")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    # The item view commits an edit on its next event-loop turn.
    qtbot.waitUntil(lambda: sessions.titles() == ["Second chat", "Trip planning"])
    assert workspace.store.session(first).title == "Trip planning"

    # Delete asks first: Cancel keeps the chat...
    click_session(qtbot, window, 0)
    qtbot.keyClick(sessions.list, Qt.Key.Key_Delete)
    box = sessions.confirm_box
    assert box is not None and box.isVisible() and "Second chat" in box.text()
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    assert sessions.titles() == ["Second chat", "Trip planning"]

    # ...and Delete (here from the context menu) removes it from the list and the store.
    rect = sessions.list.visualItemRect(sessions.session_items()[0])
    sessions.list.customContextMenuRequested.emit(rect.center())
    assert sessions.menu is not None
    [delete_action] = [a for a in sessions.menu.actions() if a.text().startswith("Delete")]
    delete_action.trigger()
    box = sessions.confirm_box
    assert box is not None
    [delete_button] = [b for b in box.buttons() if b.text() == "Delete"]
    qtbot.mouseClick(delete_button, Qt.MouseButton.LeftButton)
    # Deleting also closes the chat's browser context, so it finishes on the loop.
    aloop.run_until_complete(wait_until(lambda: sessions.titles() == ["Trip planning"]))
    assert sessions.titles() == ["Trip planning"]
    assert [s.title for s in workspace.store.sessions()] == ["Trip planning"]
    assert window.current_session_id is None  # it was open; the window went to a new chat


def test_search_finds_a_session_by_a_word_from_a_reply(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    model_server.enqueue(
        text_reply("The aardvark eats ants at night."), text_reply("Brew it at 80 °C.")
    )
    type_and_send(qtbot, window, "Tell me about a burrowing mammal")
    finish_turn(aloop, window)
    qtbot.mouseClick(window.sessions.new_chat_button, Qt.MouseButton.LeftButton)
    type_and_send(qtbot, window, "How hot for green tea?")
    finish_turn(aloop, window)

    qtbot.keyClicks(window.sessions.search, "AARDVARK")
    settle(
        aloop,
        lambda: window.sessions.titles() == ["Tell me about a burrowing mammal"],
        "the search result",
    )
    window.sessions.search.clear()
    settle(aloop, lambda: len(window.sessions.titles()) == 2, "both sessions again")


def test_copy_button_copies_the_code_of_a_reply(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    model_server.enqueue(
        text_reply("Run:\n\n```bash\npip install deskhand\ndeskhand doctor\n```\n")
    )
    type_and_send(qtbot, window, "How do I install it?")
    finish_turn(aloop, window)
    [code] = window.thread.findChildren(CodeBlockView)
    qtbot.mouseClick(code.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "pip install deskhand\ndeskhand doctor"


def test_start_up_notices_show_as_a_banner(qtbot, workspace, aloop):  # type: ignore[no-untyped-def]
    notice = "Your conversation history was damaged. It was moved to history.db.corrupt."
    workspace.store.notice = notice
    win = MainWindow(workspace)
    qtbot.addWidget(win)
    win.show()
    [banner] = win.findChildren(NoticeBanner)
    assert banner.isVisible() and banner.label.text() == notice


def test_streamed_text_repaints_itself_not_the_thread(qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    painted: list[str] = []
    original = ProseBlockView.paintEvent

    def recording(self: ProseBlockView, event) -> None:  # type: ignore[no-untyped-def]
        painted.append(self.block.html)
        original(self, event)

    monkeypatch.setattr(ProseBlockView, "paintEvent", recording)
    thread = ThreadView(1)
    qtbot.addWidget(thread)
    thread.resize(700, 500)
    thread.show()
    qtbot.waitExposed(thread)
    thread.handle(MessageStarted(session_id=1))
    thread.handle(TextDelta(session_id=1, text="".join(f"Paragraph {n}.\n\n" for n in range(30))))
    thread.handle(TextDelta(session_id=1, text="```python\n"))
    qtbot.waitUntil(lambda: "Paragraph 29." in seen.text(thread))
    qtbot.wait(100)  # the last frame paints
    painted.clear()
    for line in range(60):  # a code block grows at the bottom, a line every 15 ms
        thread.handle(TextDelta(session_id=1, text=f"value_{line} = compute({line})\n"))
        qtbot.wait(15)
    qtbot.waitUntil(lambda: "value_59 = compute(59)" in seen.text(thread))
    bar = thread.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())
    # The prose above only scrolled: its pixels moved, nothing of it was drawn again.
    assert len(painted) <= 10, f"{len(painted)} repaints of the prose above the code"


class _WindowsShown(QObject):
    """Every widget shown as a window of its own, even for a moment."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and isinstance(watched, QWidget) and watched.isWindow():
            self.shown.append(type(watched).__name__)
        return False


def test_building_the_window_opens_no_other_window(qtbot, workspace, aloop) -> None:  # type: ignore[no-untyped-def]
    """Nothing flashes on screen while the window is built: a widget shown before it has a
    parent opens as a window of its own (the composer's attach button once did, at launch)."""
    app = QApplication.instance()
    assert app is not None
    windows = _WindowsShown()
    app.installEventFilter(windows)
    try:
        win = MainWindow(workspace)
        qtbot.addWidget(win)
        assert windows.shown == []
        win.show()
        qtbot.waitExposed(win)
        assert windows.shown == ["MainWindow"]
    finally:
        app.removeEventFilter(windows)
    aloop.run_until_complete(win.shutdown())
