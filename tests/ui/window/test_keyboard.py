"""The keyboard and the widgets it reaches: Tab in reading order, focus rings that show,
and a Delete that looks like what it does."""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QToolButton, QWidget

from desktop.workspace import Workspace
from ui import theme
from ui.thread.markdown.view import CodeBlockView
from ui.thread.tool_card import ToolCard
from ui.window.main_window import MainWindow

REPLY = "Here:\n\n```python\nprint('hi')\n```\n"


def colours(widget: QWidget) -> Counter[str]:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    return Counter(
        image.pixelColor(x, y).name() for y in range(image.height()) for x in range(image.width())
    )


def window_with_a_chat(qtbot, workspace: Workspace) -> MainWindow:  # type: ignore[no-untyped-def]
    sid = workspace.store.create_session("Keys").id
    workspace.store.add_message(sid, "user", [{"type": "text", "text": "Hi"}])
    workspace.store.add_message(
        sid,
        "assistant",
        [
            {"type": "text", "text": REPLY},
            {"type": "tool_use", "id": "toolu_1", "name": "open_app", "input": {"name": "Notes"}},
        ],
    )
    workspace.store.add_message(
        sid, "user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Opened."}]
    )
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.open_session(sid)
    handle = window.windowHandle()
    assert handle is not None
    handle.requestActivate()  # keyboard focus needs an active window
    qtbot.waitUntil(window.isActiveWindow)
    return window


def press_tab(qtbot, backwards: bool = False) -> QWidget:  # type: ignore[no-untyped-def]
    focused = QApplication.focusWidget()
    assert focused is not None
    qtbot.keyClick(focused, Qt.Key.Key_Backtab if backwards else Qt.Key.Key_Tab)
    after = QApplication.focusWidget()
    assert after is not None
    return after


def test_tab_follows_the_reading_order_even_for_a_chat_opened_later(
    qtbot, aloop, workspace
) -> None:  # type: ignore[no-untyped-def]
    window = window_with_a_chat(qtbot, workspace)
    [code] = window.thread.findChildren(CodeBlockView)
    [card] = window.thread.findChildren(ToolCard)
    # The reply's own buttons (copy, regenerate...), in the order they sit on the reply.
    actions = [w for w in window.thread.findChildren(QToolButton, "messageAction") if w.isVisible()]
    actions.sort(
        key=lambda w: (
            w.mapTo(window, w.rect().topLeft()).y(),
            w.mapTo(window, w.rect().topLeft()).x(),
        )
    )
    expected = [
        window.model_picker,  # the toolbar: the mode, then the model
        window.sessions.new_chat_button,
        window.sessions.search,
        window.sessions.list,
        window.findChild(QPushButton, "sidebarSettings"),
        window.thread,
        code.copy_button,
        card.line.toggle,
        *actions,
        window.composer.attach_button,
        window.composer.editor,
        window.composer.send_button,
        window.mode_box,
    ]
    window.mode_box.setFocus()
    walked = [press_tab(qtbot) for _ in expected]
    assert walked == expected
    back = [press_tab(qtbot, backwards=True) for _ in expected[:-1]]
    assert back == list(reversed(expected[:-1]))


def test_the_focused_widget_shows_a_ring_in_both_schemes(qtbot, aloop, workspace) -> None:  # type: ignore[no-untyped-def]
    window = window_with_a_chat(qtbot, workspace)
    for preference in ("light", "dark"):
        settings = workspace.settings.model_copy(deep=True)
        settings.appearance.theme = preference  # type: ignore[assignment]
        workspace.live.apply(settings)
        ring = QColor(theme.current().focus).name()
        for widget, drawn in (
            (window.composer.editor, window.composer),  # the ring goes round the whole box
            (window.sessions.new_chat_button, window.sessions.new_chat_button),
            (window.sessions.search, window.sessions.search),
            (window.composer.send_button, window.composer.send_button),
        ):
            window.mode_box.setFocus()
            assert colours(drawn)[ring] < 10, widget.objectName()
            widget.setFocus(Qt.FocusReason.TabFocusReason)
            assert widget.hasFocus()
            if widget is window.composer.send_button:
                ring = QColor(theme.current().text).name()  # on the accent, the text colour
            assert colours(drawn)[ring] > 2 * (drawn.width() + drawn.height()), (
                preference,
                widget.objectName(),
            )
            ring = QColor(theme.current().focus).name()


def test_deleting_a_chat_asks_with_a_red_delete_and_cancel_as_the_default(
    qtbot, aloop, workspace
) -> None:  # type: ignore[no-untyped-def]
    window = window_with_a_chat(qtbot, workspace)
    box = window.sessions.confirm_delete(window.current_session_id)
    delete = next(
        b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole
    )
    assert delete.text() == "Delete"
    background = colours(delete).most_common(1)[0][0]
    assert background == QColor(theme.current().danger_button).name()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    assert delete.icon().isNull() and box.button(QMessageBox.StandardButton.Cancel).icon().isNull()
    box.reject()
