"""Copy, regenerate, edit, continue and jump to latest, in the real window against the scripted server."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QContextMenuEvent, QEnterEvent, QGuiApplication, QMouseEvent
from PySide6.QtWidgets import QApplication

from tests.support import seen
from tests.support.model_server import Hang, Reply, Text, text_reply
from tests.support.turns import turn_log
from tests.support.window import finish_turn, settle, type_and_send
from ui.thread.earlier_versions import EarlierVersionsView
from ui.thread.items import AssistantMessage, NoticeLine, UserBubble
from ui.thread.markdown.view import CodeBlockView, ProseBlockView
from ui.window.main_window import MainWindow

REPLY = """First, read **this** paragraph.

- one item
- two items

```python
print("code")
```

Last words."""


def replies(window: MainWindow) -> list[AssistantMessage]:
    return [item for item in window.thread.items() if isinstance(item, AssistantMessage)]


def hover(widget) -> None:  # type: ignore[no-untyped-def]
    point = QPointF(5, 5)
    QApplication.sendEvent(widget, QEnterEvent(point, point, widget.mapToGlobal(point)))


def clipboard() -> str:
    return QGuiApplication.clipboard().text()


def ask(qtbot, aloop, window: MainWindow, text: str) -> None:  # type: ignore[no-untyped-def]
    type_and_send(qtbot, window, text)
    finish_turn(aloop, window)


# -- copy ----------------------------------------------------------------------------


def test_a_reply_copies_whole_from_its_hover_button_and_its_menu(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop
):
    model_server.enqueue(text_reply(REPLY))
    ask(qtbot, aloop, window, "Show me")
    [reply] = replies(window)
    assert not reply.copy_button.isVisible()  # only while the pointer is over the reply
    hover(reply)
    assert reply.copy_button.isVisible()
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(reply.copy_button, Qt.MouseButton.LeftButton)
    assert clipboard() == REPLY
    assert reply.copy_button.text() == "Copied"

    QGuiApplication.clipboard().clear()
    prose = reply.findChildren(ProseBlockView)[0]
    at = QPoint(5, 5)
    QApplication.sendEvent(
        prose, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at, prose.mapToGlobal(at))
    )
    menu = prose.context_menu
    assert menu is not None
    [copy_reply] = [a for a in menu.actions() if a.text() == "Copy Reply"]
    copy_reply.trigger()
    menu.close()
    assert clipboard() == REPLY


def test_the_shortcut_copies_the_whole_last_reply(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    model_server.enqueue(text_reply("An old answer."), text_reply("The newest answer."))
    ask(qtbot, aloop, window, "First")
    ask(qtbot, aloop, window, "Second")
    assert window.copy_reply_action.shortcut().toString() == "Ctrl+Shift+C"
    QGuiApplication.clipboard().clear()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(
        window.composer.editor,
        Qt.Key.Key_C,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert clipboard() == "The newest answer."


def drag(view, start: QPoint, target_widget, end: QPoint) -> None:  # type: ignore[no-untyped-def]
    """Press in `view`, move to `end` in `target_widget` and release: the pressed view keeps
    the mouse throughout, as Qt's implicit grab does."""
    press = QMouseEvent(
        QEvent.Type.MouseButtonPress,
        QPointF(start),
        QPointF(view.mapToGlobal(start)),
        Qt.MouseButton.LeftButton,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view, press)
    at = view.mapFromGlobal(target_widget.mapToGlobal(end))
    for kind, buttons in (
        (QEvent.Type.MouseMove, Qt.MouseButton.LeftButton),
        (QEvent.Type.MouseButtonRelease, Qt.MouseButton.NoButton),
    ):
        QApplication.sendEvent(
            view,
            QMouseEvent(
                kind,
                QPointF(at),
                QPointF(view.mapToGlobal(at)),
                Qt.MouseButton.LeftButton,
                buttons,
                Qt.KeyboardModifier.NoModifier,
            ),
        )


def test_a_selection_spans_paragraphs_lists_and_code(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    model_server.enqueue(text_reply(REPLY))
    ask(qtbot, aloop, window, "Show me")
    [reply] = replies(window)
    first, listing, last = reply.findChildren(ProseBlockView)
    [code] = reply.findChildren(CodeBlockView)
    # From inside the first paragraph down into the last one, across the list and the code.
    drag(first, QPoint(3, 5), last, QPoint(last.width() // 4, 5))
    assert first.hasSelectedText() and listing.hasSelectedText() and code.code.hasSelectedText()
    first.setFocus()
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(first, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = clipboard()
    assert copied.startswith("First, read this paragraph.")
    assert "one item\ntwo items" in copied and 'print("code")' in copied
    assert copied.index("two items") < copied.index("print") < copied.index("La")
    # Dragging back up from the code block selects from the code upwards instead.
    drag(code.code, QPoint(5, 5), first, QPoint(first.width() - 2, 5))
    assert not last.hasSelectedText() and listing.hasSelectedText()
    assert code.code.hasSelectedText() and not first.selectedText().startswith("First")


# -- regenerate and edit -------------------------------------------------------------


def test_regenerate_answers_again_and_keeps_the_first_answer_folded(  # type: ignore[no-untyped-def]
    qtbot, window, workspace, model_server, aloop
):
    model_server.enqueue(text_reply("First answer."), text_reply("Better answer."))
    ask(qtbot, aloop, window, "Question")
    actions = window.thread.turn_actions
    assert actions is not None and actions.regenerate_button.isVisible()
    assert not actions.continue_button.isVisible()  # the answer ended normally
    qtbot.mouseClick(actions.regenerate_button, Qt.MouseButton.LeftButton)
    assert not actions.isVisible()  # not offered while the new answer is written
    finish_turn(aloop, window)
    [reply] = replies(window)
    assert reply.body.markdown() == "Better answer."
    [fold] = window.thread.findChildren(EarlierVersionsView)
    assert fold.toggle.text().endswith("1 earlier answer") and not fold.expanded
    qtbot.mouseClick(fold.toggle, Qt.MouseButton.LeftButton)
    assert fold.expanded and "First answer." in fold.plain_text()
    # The model was asked the question alone, not shown the replaced answer.
    assert [m["role"] for m in model_server.message_requests[-1]["messages"]] == ["user"]

    reopened = MainWindow(workspace)
    qtbot.addWidget(reopened)
    reopened.open_session(window.current_session_id)
    assert [type(item).__name__ for item in reopened.thread.items()] == [
        type(item).__name__ for item in window.thread.items()
    ]


def test_edit_a_sent_message_and_send_it_again(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    model_server.enqueue(
        text_reply("Oslo is cold."), text_reply("Take a coat."), text_reply("Lisbon is warm.")
    )
    ask(qtbot, aloop, window, "Weather in Oslo?")
    ask(qtbot, aloop, window, "What to wear?")
    first = window.thread.bubbles()[0]
    hover(first)
    assert first.edit_button.isVisible()
    qtbot.mouseClick(first.edit_button, Qt.MouseButton.LeftButton)
    assert first.editor is not None and first.editor.toPlainText() == "Weather in Oslo?"
    first.editor.selectAll()
    qtbot.keyClicks(first.editor, "Weather in Lisbon?")
    qtbot.keyClick(first.editor, Qt.Key.Key_Return)
    finish_turn(aloop, window)

    bubbles = window.thread.bubbles()
    assert [b.plain_text() for b in bubbles] == ["Weather in Lisbon?"]
    assert [r.body.markdown() for r in replies(window)] == ["Lisbon is warm."]
    [fold] = window.thread.findChildren(EarlierVersionsView)
    fold.set_expanded(True)
    assert "Weather in Oslo?" in fold.plain_text() and "Take a coat." in fold.plain_text()
    sent = model_server.message_requests[-1]["messages"]
    assert len(sent) == 1 and sent[0]["content"][-1]["text"] == "Weather in Lisbon?"


def edit_first(qtbot, window: MainWindow, text: str) -> None:  # type: ignore[no-untyped-def]
    first = window.thread.bubbles()[0]
    hover(first)
    qtbot.mouseClick(first.edit_button, Qt.MouseButton.LeftButton)
    assert first.editor is not None
    first.editor.selectAll()
    qtbot.keyClicks(first.editor, text)
    qtbot.keyClick(first.editor, Qt.Key.Key_Return)


def shown(window: MainWindow) -> list[str]:
    """The thread's messages, top to bottom, as "You: …" and "Claude: …"."""
    return [
        f"You: {item.plain_text()}"
        if isinstance(item, UserBubble)
        else f"Claude: {item.body.markdown()}"
        for item in window.thread.items()
        if isinstance(item, UserBubble | AssistantMessage)
    ]


def fold_of(window: MainWindow) -> EarlierVersionsView:
    [fold] = [item for item in window.thread.items() if isinstance(item, EarlierVersionsView)]
    return fold


def test_the_arrows_bring_back_an_earlier_version_for_the_thread_the_model_and_reopening(  # type: ignore[no-untyped-def]
    qtbot, window, workspace, model_server, aloop
):
    model_server.enqueue(
        text_reply("Oslo is cold."),
        text_reply("Take a coat."),
        text_reply("Lisbon is warm."),
        Hang(text="Boots, and"),
    )
    ask(qtbot, aloop, window, "Weather in Oslo?")
    ask(qtbot, aloop, window, "What to wear?")
    edit_first(qtbot, window, "Weather in Lisbon?")
    finish_turn(aloop, window)
    fold = fold_of(window)
    assert fold.count.text() == "2 / 2" and not fold.next_button.isEnabled()
    assert fold.previous_button.isEnabled()

    qtbot.mouseClick(fold.previous_button, Qt.MouseButton.LeftButton)
    assert shown(window) == [
        "You: Weather in Oslo?",
        "Claude: Oslo is cold.",
        "You: What to wear?",
        "Claude: Take a coat.",
    ]
    fold = fold_of(window)
    assert fold.count.text() == "1 / 2" and not fold.previous_button.isEnabled()
    assert fold.toggle.text().endswith("1 earlier version")
    fold.set_expanded(True)
    assert "Weather in Lisbon?" in fold.plain_text() and "Lisbon is warm." in fold.plain_text()
    actions = window.thread.turn_actions
    assert actions is not None and actions.regenerate_button.isVisibleTo(window)

    # While the next reply is written, versions cannot be switched.
    type_and_send(qtbot, window, "And shoes?")
    settle(aloop, lambda: "Boots, and" in seen.text(window.thread), "the reply")
    assert not fold.next_button.isEnabled()
    [use_lisbon] = fold.use_buttons().values()
    assert not use_lisbon.isEnabled()
    qtbot.mouseClick(fold.next_button, Qt.MouseButton.LeftButton)
    window.use_version(window.current_session_id, fold.order[1])  # refused as well
    assert "Boots, and" in seen.text(window.thread)
    sent = model_server.message_requests[-1]["messages"]
    assert [m["content"][-1]["text"] for m in sent] == [
        "Weather in Oslo?",
        "Oslo is cold.",
        "What to wear?",
        "Take a coat.",
        "And shoes?",
    ]
    window.stop()
    finish_turn(aloop, window)
    assert fold.next_button.isEnabled() and use_lisbon.isEnabled()

    # Reopened, the chosen version is the chat; "Use this version" brings Lisbon back.
    reopened = MainWindow(workspace)
    qtbot.addWidget(reopened)
    reopened.show()
    reopened.open_session(window.current_session_id)
    assert shown(reopened)[:4] == shown(window)[:4]
    fold = fold_of(reopened)
    assert fold.count.text() == "1 / 2"
    fold.set_expanded(True)
    [use_lisbon] = fold.use_buttons().values()
    qtbot.mouseClick(use_lisbon, Qt.MouseButton.LeftButton)
    assert shown(reopened) == ["You: Weather in Lisbon?", "Claude: Lisbon is warm."]
    fold = fold_of(reopened)
    assert fold.count.text() == "2 / 2"
    fold.set_expanded(True)
    assert "And shoes?" not in fold.plain_text()  # only the changed prompt shows
    assert "Boots, and" in fold.plain_text()  # the Oslo version kept its newest turn


def test_edit_is_not_offered_while_a_reply_runs_and_escape_cancels_it(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop
):
    model_server.enqueue(text_reply("Done."), Hang(text="Working"))
    ask(qtbot, aloop, window, "One")
    bubble = window.thread.bubbles()[0]
    hover(bubble)
    qtbot.mouseClick(bubble.edit_button, Qt.MouseButton.LeftButton)
    assert bubble.editor is not None
    qtbot.keyClick(bubble.editor, Qt.Key.Key_Escape)
    assert bubble.editor is None and bubble.label.isVisible()
    type_and_send(qtbot, window, "Two")
    settle(aloop, lambda: "Working" in seen.text(window.thread), "the reply")
    assert bubble.edit_button.isHidden()
    bubble.start_edit()
    assert bubble.editor is None
    window.stop()
    finish_turn(aloop, window)
    assert not bubble.edit_button.isHidden()


# -- continue ------------------------------------------------------------------------


def test_continue_after_stop_goes_on_below_the_partial_reply(  # type: ignore[no-untyped-def]
    qtbot, window, workspace, model_server, aloop
):
    model_server.enqueue(Hang(text="Once upon a time"), text_reply("there was a fox."))
    type_and_send(qtbot, window, "A story please")
    settle(aloop, lambda: "Once upon a time" in seen.text(window.thread), "the start")
    window.stop()
    finish_turn(aloop, window)
    actions = window.thread.turn_actions
    assert actions is not None and actions.continue_button.isVisible()
    qtbot.mouseClick(actions.continue_button, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)
    text = seen.text(window.thread)
    assert text.index("Once upon a time") < text.index("Continued") < text.index("there was a fox")
    assert not window.thread.turn_actions.continue_button.isVisible()
    assert window.thread.last_reply_text() == "Once upon a time\n\nthere was a fox."

    reopened = MainWindow(workspace)
    qtbot.addWidget(reopened)
    reopened.open_session(window.current_session_id)
    notices = [i.plain_text() for i in reopened.thread.items() if isinstance(i, NoticeLine)]
    assert "↪ Continued" in notices
    assert not any(
        isinstance(i, UserBubble) and "continue" in i.plain_text().lower()
        for i in reopened.thread.items()
    )


def test_continue_after_the_token_limit(qtbot, window, model_server, aloop):  # type: ignore[no-untyped-def]
    model_server.enqueue(
        text_reply("The first half", stop_reason="max_tokens"), text_reply(" and the rest.")
    )
    ask(qtbot, aloop, window, "Long please")
    assert "cut off" in seen.text(window.thread)
    actions = window.thread.turn_actions
    assert actions is not None and actions.continue_button.isVisible()
    qtbot.mouseClick(actions.continue_button, Qt.MouseButton.LeftButton)
    finish_turn(aloop, window)
    assert "and the rest." in seen.text(window.thread)
    assert model_server.message_requests[-1]["messages"][1]["content"][0]["text"] == (
        "The first half"
    )


# -- jump to latest ------------------------------------------------------------------


def test_jump_to_latest_shows_while_streaming_above_the_end(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop
):
    long_reply = "\n\n".join(f"Paragraph {n}: " + "word " * 30 for n in range(120))
    model_server.enqueue(Reply(blocks=[Text(text=long_reply, chunk_size=40)], chunk_delay=0.01))
    type_and_send(qtbot, window, "Write a lot")
    thread = window.thread
    bar = thread.verticalScrollBar()
    settle(aloop, lambda: bar.maximum() > 400, "the thread to overflow")
    assert not thread.jump_button.isVisible()  # following the text: nothing to jump to
    bar.setValue(0)
    assert thread.jump_button.isVisible()
    # It sits over the bottom of the thread, centred.
    button = thread.jump_button.geometry()
    assert abs(button.center().x() - thread.viewport().geometry().center().x()) <= 2
    assert button.bottom() < thread.viewport().geometry().bottom()
    qtbot.mouseClick(thread.jump_button, Qt.MouseButton.LeftButton)
    assert bar.value() == bar.maximum() and not thread.jump_button.isVisible()
    settle(
        aloop,
        lambda: bar.maximum() > bar.value() + 300 or turn_log(window.conversations).finished,
        "more",
    )
    finish_turn(aloop, window)
    assert bar.value() == bar.maximum()  # it followed the text again to the end
    bar.setValue(0)
    assert not thread.jump_button.isVisible()  # idle: no reply to jump to
