"""The thread's scrolling column: where items go, how it is sized, and how it follows the newest
text while the person is at the bottom (with "Jump to latest" when they scrolled away).

`ThreadView` (ui/thread/view.py) renders events into it; this module knows nothing of events.
Items go in at one insertion point: below everything (above the last turn's actions), or,
while older history is being shown, above what is already there.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QToolButton, QVBoxLayout, QWidget

from ui import theme
from ui.thread.items import TurnActions
from ui.thread.labels import DEFAULT_POINT_SIZE, StableHints

# The worst gaps between frames are about FRAME_MS plus how much a frame's work varies:
# 10 ms keeps them under 20 ms (bench/ui_stream.py) where 12 ms reached it on a busy machine.
FRAME_MS = 10
MAX_COLUMN_WIDTH = 860
BOTTOM_SLACK_PX = 24
JUMP_MARGIN_PX = 14
EMPTY_HINT = "Ask Claude anything.\nEnter sends, Shift+Enter starts a new line."


class _Column(StableHints, QWidget):
    """The widget inside the scroll area; its height is set by `ThreadColumn._fit_column`."""


class ThreadColumn(QScrollArea):
    """A centred column of items that scrolls.

    The column is sized by hand (height for the viewport's width) rather than by
    `widgetResizable`, which would ask the whole thread for its height at its size
    hint's width as well, on every change.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("threadView")
        self.setWidgetResizable(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # A viewport made here, so PySide knows its class: one Qt made would have PySide look
        # for the class of the first such widget it meets by building every widget class it
        # has not built yet (about 80 of them; ~8 ms of the window's start).
        self.setViewport(QWidget())
        self.column = _Column()
        self.column.setObjectName("threadColumn")
        self.column.setAutoFillBackground(True)
        self.column.grows_in_place()
        self.viewport().setAutoFillBackground(True)
        self._paint(theme.current())
        theme.theme().changed.connect(self._paint)
        font = self.column.font()
        self.base_pt = max(font.pointSizeF(), DEFAULT_POINT_SIZE)
        font.setPointSizeF(self.base_pt)
        self.column.setFont(font)
        self._layout = QVBoxLayout(self.column)
        self._layout.setSpacing(16)
        self._layout.addStretch(1)
        self.setWidget(self.column)
        self.column.installEventFilter(self)
        self.viewport().installEventFilter(self)
        self.empty_hint = QLabel(EMPTY_HINT)
        self.empty_hint.setObjectName("emptyThread")
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._layout.insertWidget(0, self.empty_hint)

        # The frame clock of streamed text: one relayout per frame, however fast it comes.
        self._frame = QTimer(self)
        self._frame.setInterval(FRAME_MS)
        self._frame.setTimerType(Qt.TimerType.PreciseTimer)

        self._history_at: int | None = None  # where older history goes while it is shown
        self.turn_actions: TurnActions | None = None

        self._busy = False
        self._follow = True
        self._scroll_pending = False
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)
        # Over the viewport, not in the column: it stays put while the thread scrolls.
        self.jump_button = QToolButton(self)
        self.jump_button.setObjectName("jumpToLatest")
        self.jump_button.setText("↓  Jump to latest")
        self.jump_button.setToolTip("Scroll down to the reply as it is written")
        self.jump_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.jump_button.clicked.connect(self.jump_to_latest)
        self.jump_button.hide()

    def _paint(self, colours: theme.Palette) -> None:
        # Colours by palette, not style sheet: a style-sheet background makes the column
        # non-opaque to Qt, and then scrolling repaints the whole viewport instead of
        # shifting the pixels already drawn.
        palette = self.column.palette()
        palette.setColor(QPalette.ColorRole.Window, QColor(colours.canvas))
        palette.setColor(QPalette.ColorRole.WindowText, QColor(colours.text))
        palette.setColor(QPalette.ColorRole.Text, QColor(colours.text))
        self.column.setPalette(palette)
        self.viewport().setPalette(palette)

    # -- items ----------------------------------------------------------------------

    @property
    def batching(self) -> bool:
        """Whether stored history is being shown (above what is there), not a live turn."""
        return self._history_at is not None

    def _insert_index(self) -> int:
        """Where the next item goes: older history above what is shown; anything else at
        the end, above the last turn's actions, which stay under it."""
        if self._history_at is not None:
            return self._history_at
        if self.turn_actions is not None:
            return self._layout.indexOf(self.turn_actions)
        return self._layout.count() - 1  # above the stretch

    def _add(self, widget: QWidget) -> None:
        if self.empty_hint.isVisibleTo(self):
            self.empty_hint.hide()
        self._layout.insertWidget(self._insert_index(), widget)
        if self._history_at is not None:
            self._history_at += 1
        widget.show()  # now, not on the next turn of the loop (see MarkdownView)

    def _add_last(self, widget: QWidget) -> None:
        """Under everything (the last turn's actions)."""
        self._layout.insertWidget(self._layout.count() - 1, widget)

    def _remove(self, widget: QWidget) -> None:
        self._layout.removeWidget(widget)
        widget.hide()
        widget.deleteLater()

    def _widget_at(self, index: int) -> QWidget | None:
        item = self._layout.itemAt(index)
        return item.widget() if item is not None else None

    def items(self) -> list[QWidget]:
        """The widgets of the thread, top to bottom."""
        found = []
        for index in range(self._layout.count()):
            widget = self._widget_at(index)
            if widget is not None and widget is not self.empty_hint:
                found.append(widget)
        return found

    def _clear(self) -> None:
        for widget in self.items():
            self._remove(widget)
        self.turn_actions = None

    def _lay_out_now(self, changed: list[QWidget]) -> None:
        """Lay out the column top-down now, after the `changed` widgets (innermost first) grew.

        Left to Qt, the innermost layout would activate first, inside its parent's stale
        size, squeezing every block of the reply, and the outer layouts would then put
        them back: two moves and repaints of everything on every frame. The layout
        requests Qt has queued find everything already done and return at once.
        """
        for widget in changed:
            widget.updateGeometry()  # drop the stale cached heights on the way up
        self._fit_column()
        self._layout.activate()
        for widget in reversed(changed):
            if (layout := widget.layout()) is not None:
                layout.activate()

    # -- scrolling and width ------------------------------------------------------

    def _on_scrolled(self, value: int) -> None:
        self._follow = value >= self.verticalScrollBar().maximum() - BOTTOM_SLACK_PX
        if not self._follow:
            self._scroll_pending = False  # the person scrolled away: leave them there
        self._update_jump()

    def jump_to_latest(self) -> None:
        """Back to the newest text, following it again."""
        self._follow = True
        self._scroll_to_bottom()
        self._update_jump()

    def _update_jump(self) -> None:
        show = self._busy and not self._follow
        if show != self.jump_button.isVisible():
            self.jump_button.setVisible(show)
            if show:
                self._place_jump()
                self.jump_button.raise_()

    def _place_jump(self) -> None:
        self.jump_button.adjustSize()
        area = self.viewport().geometry()
        size = self.jump_button.sizeHint()
        self.jump_button.setGeometry(
            area.center().x() - size.width() // 2,
            area.bottom() - size.height() - JUMP_MARGIN_PX,
            size.width(),
            size.height(),
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_jump()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.column and event.type() == QEvent.Type.LayoutRequest) or (
            watched is self.viewport() and event.type() == QEvent.Type.Resize
        ):
            self._fit_column()
        return super().eventFilter(watched, event)

    def _fit_column(self) -> None:
        width = self.viewport().width()
        # A readable measure: the column stays centred and at most MAX_COLUMN_WIDTH wide.
        side = max(20, (width - MAX_COLUMN_WIDTH) // 2)
        if self._layout.contentsMargins().left() != side:
            self._layout.setContentsMargins(side, 18, side, 18)
        height = max(self._layout.totalHeightForWidth(width), self.viewport().height())
        if self.column.width() != width or self.column.height() != height:
            follow = self._follow
            bar = self.verticalScrollBar()
            from_bottom = bar.maximum() - bar.value()
            narrower_or_wider = self.column.width() != width
            self.column.resize(width, height)
            if narrower_or_wider and not follow:
                # The text wrapped anew (a scroll bar came or went, the window was resized):
                # what the person was reading stays where it was, as history does above it.
                bar.setValue(bar.maximum() - from_bottom)
            elif follow and self._frame.isActive():
                # Qt scrolls by shifting the pixels already drawn, unless part of the
                # area still needs painting (it will not "scroll junk"), and the
                # streaming tail just changed: that would repaint the whole viewport
                # on every frame. The next frame tick scrolls first, while all is clean.
                self._scroll_pending = True
            elif follow:
                self._scroll_to_bottom()

    def _catch_up_scroll(self) -> None:
        if self._scroll_pending and self._follow:
            self._scroll_pending = False
            self._scroll_to_bottom()

    def _scroll_to_bottom(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())


JUMP_STYLE = """
#jumpToLatest {
    background: palette(base); color: palette(window-text); border: 1px solid palette(mid);
    border-radius: 14px; padding: 5px 14px;
}
#jumpToLatest:hover { background: palette(alternate-base); }
"""
