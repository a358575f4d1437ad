"""Shared pieces for views of wrapped text: size hints that never cause a relayout.

`WrappingLabel` and the `StableHints` containers keep size hints constant so that Qt never
re-measures text that did not change; the Markdown view, the thread and the tool cards
all build on them. `DEFAULT_POINT_SIZE` is the reading size of the thread's text.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from ui.thread.rich_text import HINT_WIDTH, MIN_WIDTH

DEFAULT_POINT_SIZE = 10.5

# Why the size hints below are constants: Qt's box layouts ask every height-for-width
# child for its height again on each relayout, at the real width and at the width of
# the layout's size hint. A QLabel's hints follow its text, so a label that changes on
# every frame would shift that hint width and make every block of the reply lay its
# text out again: a cost that grows with the reply. With constant hints, heights are
# only asked at widths each widget has already cached.


class StableHints:
    """Mixin for containers of wrapped text: size hints that never trigger a relayout."""

    def grows_in_place(self: QWidget) -> None:  # type: ignore[misc]
        """Content stays put when this widget grows: Qt repaints only the new area."""
        self.setAttribute(Qt.WidgetAttribute.WA_StaticContents)

    def sizeHint(self) -> QSize:
        return QSize(HINT_WIDTH, 0)

    def minimumSizeHint(self) -> QSize:
        return QSize(MIN_WIDTH, 0)


class WrappingLabel(QLabel):
    """A word-wrapped, mouse-selectable label whose size hints do not depend on its text."""

    def __init__(
        self, text: str = "", *, rich: bool = False, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        flags = Qt.TextInteractionFlag.TextSelectableByMouse
        if rich:
            flags |= Qt.TextInteractionFlag.LinksAccessibleByMouse
        self.setTextInteractionFlags(flags)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        reserve_space_while_hidden(self)
        # Layouts ask the same height several times per pass, and each QLabel answer
        # lays the text out twice (it restores the previous text width afterwards).
        self._heights: dict[int, int] = {}
        if text:
            self.setText(text)

    def setText(self, text: str) -> None:
        self._heights.clear()
        super().setText(text)

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) > 3:
                self._heights.clear()
            height = self._heights[width] = super().heightForWidth(width)
        return height

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._heights.clear()
        super().changeEvent(event)

    def sizeHint(self) -> QSize:
        return QSize(HINT_WIDTH, self.fontMetrics().lineSpacing())

    def minimumSizeHint(self) -> QSize:
        # Also keeps a long URL from setting the minimum width of the whole thread.
        return QSize(MIN_WIDTH, self.fontMetrics().lineSpacing())


def reserve_space_while_hidden(widget: QWidget) -> None:
    """Let a new widget count in layouts before it is shown (see MarkdownView.show_new)."""
    policy = widget.sizePolicy()
    policy.setRetainSizeWhenHidden(True)
    widget.setSizePolicy(policy)
