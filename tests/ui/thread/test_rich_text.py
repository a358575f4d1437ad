"""RichTextView: the text of a reply reads, wraps, selects, copies and links like text should."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QContextMenuEvent, QGuiApplication
from PySide6.QtWidgets import QApplication, QMenu

from ui.thread.rich_text import RichTextView

PARAGRAPH = "<p>Deskhand reads the page, then <b>clicks</b> the button you named.</p>"


def shown(qtbot, html: str, width: int = 400) -> RichTextView:  # type: ignore[no-untyped-def]
    view = RichTextView(html)
    qtbot.addWidget(view)
    view.resize(width, view.heightForWidth(width))
    view.show()
    qtbot.waitExposed(view)
    return view


def point_of(view: RichTextView, position: int) -> QPoint:
    """The widget point just inside the character at `position` of the document."""
    layout = view.document().documentLayout()
    block = view.document().findBlock(position)
    line = block.layout().lineForTextPosition(position - block.position())
    x, _ = line.cursorToX(position - block.position())
    top = layout.blockBoundingRect(block).top() + line.y()
    return QPoint(int(x) + 1, int(top + line.height() / 2))


def test_height_follows_the_width_and_the_text(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = RichTextView(PARAGRAPH * 3)
    qtbot.addWidget(view)
    narrow, wide = view.heightForWidth(150), view.heightForWidth(900)
    assert narrow > wide > 0  # wrapping takes more lines when narrow
    view.setText(PARAGRAPH * 6)
    assert view.heightForWidth(900) > wide


def test_dragging_selects_text_and_the_copy_shortcut_copies_it(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = shown(qtbot, PARAGRAPH)
    text = view.plain_text()
    start, end = text.index("reads"), text.index("reads") + len("reads the page")
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=point_of(view, start))
    qtbot.mouseMove(view, point_of(view, end))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=point_of(view, end))
    assert view.selectedText() == "reads the page"
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "reads the page"


def test_double_click_selects_a_word_and_select_all_takes_everything(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = shown(qtbot, PARAGRAPH)
    position = view.plain_text().index("button") + 2
    qtbot.mouseDClick(view, Qt.MouseButton.LeftButton, pos=point_of(view, position))
    assert view.selectedText() == "button"
    view.select_all()
    assert view.selectedText() == view.plain_text()


def test_clicking_a_link_activates_it_but_selecting_across_it_does_not(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = shown(qtbot, '<p>See <a href="https://example.com/docs">the docs</a> first.</p>')
    link = point_of(view, view.plain_text().index("docs"))
    assert view.link_at(QPointF(link)) == "https://example.com/docs"
    with qtbot.waitSignal(view.linkActivated) as activated:
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=link)
    assert activated.args == ["https://example.com/docs"]

    clicked: list[str] = []
    view.linkActivated.connect(clicked.append)
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=link)
    qtbot.mouseMove(view, point_of(view, 0))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=point_of(view, 0))
    assert clicked == [] and view.selectedText().startswith("See the")


def test_the_context_menu_offers_copy_copy_link_and_select_all(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = shown(qtbot, '<p>Open <a href="https://example.com/">example</a> now.</p>')
    link = point_of(view, view.plain_text().index("example") + 1)
    QApplication.sendEvent(
        view, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, link, view.mapToGlobal(link))
    )
    menu = view.findChild(QMenu)
    assert menu is not None
    actions = {action.text(): action for action in menu.actions()}
    assert list(actions) == ["Copy", "Copy Link", "Select All"]
    assert not actions["Copy"].isEnabled()  # nothing selected
    actions["Copy Link"].trigger()
    assert QGuiApplication.clipboard().text() == "https://example.com/"
    actions["Select All"].trigger()
    assert view.selectedText() == "Open example now."
    menu.close()


def test_plain_text_is_shown_as_is(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = RichTextView("<b>not bold</b>\n  indented", rich=False)
    qtbot.addWidget(view)
    assert view.plain_text() == "<b>not bold</b>\n  indented"
    assert view.accessibleName() == "<b>not bold</b>\n  indented"
