"""One selection across the text views of a reply: paragraphs, lists and code blocks alike.

A reply is a column of `RichTextView`s, one per Markdown block. The view where a drag
starts keeps the mouse; it hands each move to this scope, which finds the view under
the pointer and selects from the anchor to there: the rest of the first view, every
view between, the start of the last. Copy takes the selected parts top to bottom, as
plain text and as HTML.
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPoint, QPointF
from PySide6.QtGui import QClipboard, QGuiApplication
from PySide6.QtWidgets import QWidget

from ui.thread.rich_text import RichTextView


class SelectionScope:
    """The shared selection of the text views inside `root`."""

    def __init__(self, root: QWidget) -> None:
        self.root = root
        self._anchor: tuple[RichTextView, int] | None = None

    def views(self) -> list[RichTextView]:
        """The visible text views, top to bottom."""
        found = [
            view for view in self.root.findChildren(RichTextView) if view.isVisibleTo(self.root)
        ]
        return sorted(found, key=lambda view: view.mapTo(self.root, QPoint(0, 0)).y())

    def begin(self, view: RichTextView, position: int) -> None:
        """A press in `view`: any earlier selection in the reply goes."""
        for other in self.views():
            if other is not view:
                other.clear_selection()
        self._anchor = (view, position)

    def extend(self, view: RichTextView, point: QPointF) -> None:
        """The pointer moved to `point` (in `view`'s coordinates) while selecting."""
        if self._anchor is None:
            self.begin(view, view.position_at(point))
        assert self._anchor is not None
        anchor_view, anchor = self._anchor
        views = self.views()
        if anchor_view not in views:
            return
        at = view.mapTo(self.root, point.toPoint())
        target, position = self._hit(views, at, views.index(anchor_view))
        first, last = sorted((views.index(anchor_view), views.index(target)))
        downwards = views.index(target) >= views.index(anchor_view)
        for index, each in enumerate(views):
            if each is anchor_view and each is target:
                each.set_selection(anchor, position)
            elif each is anchor_view:
                each.set_selection(anchor, each.end_position() if downwards else 0)
            elif each is target:
                each.set_selection(0 if downwards else each.end_position(), position)
            elif first < index < last:
                each.set_selection(0, each.end_position())
            else:
                each.clear_selection()

    def _hit(
        self, views: list[RichTextView], at: QPoint, anchor_index: int
    ) -> tuple[RichTextView, int]:
        """The view and position for a point in the root: the view at that height, or the
        nearest edge of one when the point is between views or beyond them."""
        for index, view in enumerate(views):
            top = view.mapTo(self.root, QPoint(0, 0)).y()
            bottom = top + view.height()
            if at.y() < top:
                if index == 0:
                    return view, 0
                above = views[index - 1]
                # In the gap: the end of the block above when selecting down, else this start.
                if index - 1 >= anchor_index:
                    return above, above.end_position()
                return view, 0
            if at.y() < bottom:
                local = view.mapFrom(self.root, at)
                return view, view.position_at(QPointF(local))
        return views[-1], views[-1].end_position()

    def has_selection(self) -> bool:
        return any(view.hasSelectedText() for view in self.views())

    def selected_text(self) -> str:
        # A block's text ends in a space where its last line wrapped: it is not the person's.
        parts = [view.selectedText().rstrip(" ") for view in self.views() if view.hasSelectedText()]
        return "\n\n".join(parts)

    def copy(self, mode: QClipboard.Mode = QClipboard.Mode.Clipboard) -> None:
        clipboard = QGuiApplication.clipboard()
        selected = [view for view in self.views() if view.hasSelectedText()]
        if clipboard is None or not selected:
            return
        data = QMimeData()
        data.setText(self.selected_text())
        data.setHtml("\n".join(view.selected_html() for view in selected))
        clipboard.setMimeData(data, mode)

    def clear(self) -> None:
        for view in self.views():
            view.clear_selection()
        self._anchor = None
