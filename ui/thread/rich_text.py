"""Text that lays itself out once: a QTextDocument in a plain widget.

A QLabel lays its text out twice for every height a layout asks of it (it restores its
previous width afterwards), once more to paint, and parses its style sheet with every
new text. A streaming reply gives its last block new text on every frame, so those
costs were most of a frame. `RichTextView` keeps one document laid out at its current
width, with the style sheet set once, and still offers what a reader expects of text:
selecting with the mouse (a double-click takes a word), copying with the keyboard or
the context menu, and links that can be clicked or copied.

A reply is many of these (one per Markdown block). An ancestor that offers a
`selection_scope` (ui/thread/text_selection.py) lets one drag select across all of them, and
one that offers `add_context_actions(menu)` adds its own entries ("Copy Reply").
"""

from __future__ import annotations

import math
from functools import cache
from typing import Protocol, runtime_checkable

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QClipboard,
    QContextMenuEvent,
    QFocusEvent,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QMenu, QSizePolicy, QWidget

HINT_WIDTH = 320  # see ui/thread/labels.py: size hints that never depend on the text
MIN_WIDTH = 40


class Scope(Protocol):
    """A selection shared by the text views of one reply (see ui/thread/text_selection.py)."""

    def begin(self, view: RichTextView, position: int) -> None: ...
    def extend(self, view: RichTextView, point: QPointF) -> None: ...
    def has_selection(self) -> bool: ...
    def copy(self, mode: QClipboard.Mode = QClipboard.Mode.Clipboard) -> None: ...
    def clear(self) -> None: ...


@runtime_checkable
class ContextActions(Protocol):
    """An ancestor that adds entries to its text's context menu."""

    def add_context_actions(self, menu: QMenu) -> None: ...


class RichTextView(QWidget):
    """Selectable rich (or plain) text whose height follows its width."""

    linkActivated = Signal(str)

    def __init__(
        self,
        text: str = "",
        *,
        rich: bool = True,
        style_sheet: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._rich = rich
        self._text: str | None = None
        self._style_sheet = style_sheet
        self._document = _blank_document(style_sheet).clone(self)
        self._document.setDocumentMargin(0)  # not cloned
        self._document.setUndoRedoEnabled(False)
        self._document.setDefaultFont(self.font())
        self._heights: dict[int, int] = {}
        self._selection = QTextCursor(self._document)
        self._selecting = False
        self._pressed_link = ""
        self.context_menu: QMenu | None = None
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        policy.setRetainSizeWhenHidden(True)  # counts in layouts before it is shown
        self.setSizePolicy(policy)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # focus only to copy what was selected
        self.setMouseTracking(True)  # the pointer turns into a hand over links
        self.setCursor(Qt.CursorShape.IBeamCursor)
        self.setText(text)

    # -- text -------------------------------------------------------------------

    def text(self) -> str:
        """The HTML (or plain text) as set."""
        return self._text or ""

    def setText(self, text: str) -> None:
        if text == self._text:
            return
        self._text = text
        if self._rich:
            self._document.setHtml(text)
        else:
            self._document.setPlainText(text)
        self._selection = QTextCursor(self._document)
        self._heights.clear()
        self.setAccessibleName(self._document.toPlainText())
        self.updateGeometry()
        self.update()

    def set_style_sheet(self, style_sheet: str) -> None:
        """Lay the text out again under another style sheet (a new theme's colours)."""
        if style_sheet == self._style_sheet:
            return
        self._style_sheet = style_sheet
        self._document.setDefaultStyleSheet(style_sheet)
        if self._rich and self._text is not None:
            self._document.setHtml(self._text)  # the style sheet applies as HTML is read
            self._selection = QTextCursor(self._document)
            self._heights.clear()
            self.updateGeometry()
        self.update()

    def plain_text(self) -> str:
        return self._document.toPlainText()

    def document(self) -> QTextDocument:
        return self._document

    # -- size -------------------------------------------------------------------

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) > 3:
                self._heights.clear()
            self._lay_out(width)
            height = self._heights[width] = math.ceil(self._document.size().height())
        return height

    def sizeHint(self) -> QSize:
        return QSize(HINT_WIDTH, self.fontMetrics().lineSpacing())

    def minimumSizeHint(self) -> QSize:
        # Also keeps a long URL from setting the minimum width of the whole thread.
        return QSize(MIN_WIDTH, self.fontMetrics().lineSpacing())

    def _lay_out(self, width: int) -> None:
        if self._document.textWidth() != width:
            self._document.setTextWidth(width)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._document.setDefaultFont(self.font())
            self._heights.clear()
            self.updateGeometry()
        super().changeEvent(event)

    # -- painting ---------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        self._lay_out(self.width())
        context = QAbstractTextDocumentLayout.PaintContext()
        context.clip = QRectF(event.rect())
        palette = self.palette()
        context.palette.setColor(
            QPalette.ColorRole.Text, palette.color(QPalette.ColorRole.WindowText)
        )
        if self._selection.hasSelection():
            highlight = QAbstractTextDocumentLayout.Selection()
            highlight.cursor = self._selection
            selected = QTextCharFormat()
            selected.setBackground(palette.color(QPalette.ColorRole.Highlight))
            selected.setForeground(palette.color(QPalette.ColorRole.HighlightedText))
            highlight.format = selected
            context.selections = [highlight]
        painter = QPainter(self)
        painter.setClipRect(event.rect())
        self._document.documentLayout().draw(painter, context)
        painter.end()

    # -- selection and links ----------------------------------------------------

    def selectedText(self) -> str:
        # Qt marks paragraph ends with U+2029 in a selection.
        return self._selection.selectedText().replace("\u2029", "\n").replace("\u2028", "\n")

    def hasSelectedText(self) -> bool:
        return self._selection.hasSelection()

    def selected_html(self) -> str:
        """The selection as an HTML fragment (what lies between Qt's fragment markers)."""
        if not self._selection.hasSelection():
            return ""
        whole = self._selection.selection().toHtml()
        start, end = whole.find("<!--StartFragment-->"), whole.find("<!--EndFragment-->")
        if start < 0 or end < start:
            return whole
        fragment = whole[start + len("<!--StartFragment-->") : end]
        return fragment if self._rich else f"<pre>{fragment}</pre>"

    def end_position(self) -> int:
        return max(self._document.characterCount() - 1, 0)

    def set_selection(self, anchor: int, position: int) -> None:
        """Select from `anchor` to `position` (document positions; the scope sets these)."""
        end = self.end_position()
        self._selection = QTextCursor(self._document)
        self._selection.setPosition(min(max(anchor, 0), end))
        self._selection.setPosition(min(max(position, 0), end), QTextCursor.MoveMode.KeepAnchor)
        self.update()

    def clear_selection(self) -> None:
        if self._selection.hasSelection():
            self._selection.clearSelection()
            self.update()

    def select_all(self) -> None:
        if (scope := self._scope()) is not None:
            scope.begin(self, 0)
        self._selection = QTextCursor(self._document)
        self._selection.select(QTextCursor.SelectionType.Document)
        self.update()

    def copy(self) -> None:
        if (scope := self._scope()) is not None:
            scope.copy()
        elif self._selection.hasSelection() and (clipboard := QGuiApplication.clipboard()):
            clipboard.setText(self.selectedText())

    def _scope(self) -> Scope | None:
        parent = self.parentWidget()
        while parent is not None:
            scope = getattr(parent, "selection_scope", None)
            if scope is not None:
                return scope
            parent = parent.parentWidget()
        return None

    def link_at(self, position: QPointF) -> str:
        return self._document.documentLayout().anchorAt(position)

    def position_at(self, point: QPointF) -> int:
        """The document position nearest to `point` (in this widget's coordinates)."""
        self._lay_out(self.width())
        position = self._document.documentLayout().hitTest(point, Qt.HitTestAccuracy.FuzzyHit)
        return max(position, 0)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        self._pressed_link = self.link_at(event.position())
        position = self.position_at(event.position())
        self._selection = QTextCursor(self._document)
        self._selection.setPosition(position)
        self._selecting = True
        if (scope := self._scope()) is not None:
            scope.begin(self, position)
        self.update()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._selecting:
            if (scope := self._scope()) is not None:
                scope.extend(self, event.position())  # it may reach the blocks around this one
                return
            self._selection.setPosition(
                self.position_at(event.position()), QTextCursor.MoveMode.KeepAnchor
            )
            self.update()
            return
        over_link = bool(self.link_at(event.position()))
        self.setCursor(
            Qt.CursorShape.PointingHandCursor if over_link else Qt.CursorShape.IBeamCursor
        )

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self._selecting:
            super().mouseReleaseEvent(event)
            return
        self._selecting = False
        link = self._pressed_link
        self._pressed_link = ""
        scope = self._scope()
        if self._selection.hasSelection() or (scope is not None and scope.has_selection()):
            clipboard = QGuiApplication.clipboard()
            if clipboard is not None and clipboard.supportsSelection():
                if scope is not None:
                    scope.copy(QClipboard.Mode.Selection)
                else:
                    clipboard.setText(self.selectedText(), QClipboard.Mode.Selection)
        elif link and self.link_at(event.position()) == link:
            self.linkActivated.emit(link)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            super().mouseDoubleClickEvent(event)
            return
        if (scope := self._scope()) is not None:
            scope.clear()
        self._selection = QTextCursor(self._document)
        self._selection.setPosition(self.position_at(event.position()))
        self._selection.select(QTextCursor.SelectionType.WordUnderCursor)
        self.update()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy()
        elif event.matches(QKeySequence.StandardKey.SelectAll):
            self.select_all()
        else:
            super().keyPressEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        # Selecting in another block clears this one, as in any text view; a menu does not.
        if event.reason() != Qt.FocusReason.PopupFocusReason:
            scope = self._scope()
            if scope is not None and self._selecting is False and scope.has_selection():
                focused = QGuiApplication.focusObject()
                if not (isinstance(focused, RichTextView) and focused._scope() is scope):
                    scope.clear()
            elif scope is None:
                self.clear_selection()
        super().focusOutEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        copy = menu.addAction("Copy")
        scope = self._scope()
        copy.setEnabled(
            self._selection.hasSelection() or (scope is not None and scope.has_selection())
        )
        copy.triggered.connect(self.copy)
        link = self.link_at(QPointF(event.pos()))
        if link.split(":", 1)[0].lower() in ("http", "https", "mailto"):
            menu.addAction("Copy Link").triggered.connect(lambda: _to_clipboard(link))
        menu.addAction("Select All").triggered.connect(self.select_all)
        parent = self.parentWidget()
        while parent is not None:
            if isinstance(parent, ContextActions):
                menu.addSeparator()
                parent.add_context_actions(menu)
                break
            parent = parent.parentWidget()
        self.context_menu = menu
        menu.popup(event.globalPos())


@cache
def _blank_document(style_sheet: str) -> QTextDocument:
    """An empty document with the style sheet parsed: cloning it costs a third of parsing."""
    document = QTextDocument()
    document.setDefaultStyleSheet(style_sheet)
    return document


def _to_clipboard(text: str) -> None:
    clipboard = QGuiApplication.clipboard()
    if clipboard is not None:
        clipboard.setText(text)
