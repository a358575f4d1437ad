"""One session's conversation as a scrolling column: the person's bubbles, Claude's replies
as Markdown, tool cards, notices and error cards with Retry (the items themselves are in
ui/thread_items.py).

`ThreadView.handle(event)` renders the agent's events. Text deltas are buffered and
applied at most once per frame by a 10 ms timer, so a fast stream never causes one
relayout per token; the column follows the newest text only while the person is
already at the bottom.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.events import (
    AgentEvent,
    MessageCommitted,
    MessageStarted,
    PromptAdded,
    TextDelta,
    ToolFinished,
    ToolProgress,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from ui import theme
from ui.labels import DEFAULT_POINT_SIZE, StableHints
from ui.markdown_view import ProseBlockView
from ui.thread_items import (
    INTERRUPTED,
    STOPPED,
    AssistantMessage,
    ErrorCard,
    NoticeLine,
    UserBubble,
)
from ui.tool_card import ToolCard, ToolRun

# The worst gaps between frames are about FRAME_MS plus how much a frame's work varies:
# 10 ms keeps them under 20 ms (bench/ui_stream.py) where 12 ms reached it on a busy machine.
FRAME_MS = 10
# History shown at once when a session opens (about a screenful), then per later slice.
HISTORY_FIRST_CHARS = 8_000
HISTORY_SLICE_CHARS = 4_000
EVENT_CHARS = 200  # what a card or a message costs beyond its text
# Text that arrives in lumps (a busy network or machine) is let out over the next few
# frames, so a reply keeps moving on every frame instead of jumping and pausing: each
# frame shows this share of the waiting text (at least PACE_MIN_CHARS), so a lump is
# out within a few dozen milliseconds and a steady stream waits about three frames.
PACE_SHARE = 0.3
PACE_MIN_CHARS = 12
MAX_COLUMN_WIDTH = 860
BOTTOM_SLACK_PX = 24
UNNAMED_CALL = "A tool call"
EMPTY_HINT = "Ask Claude anything.\nEnter sends, Shift+Enter starts a new line."


class _Column(StableHints, QWidget):
    """The widget inside the scroll area; its height is set by `ThreadView._fit_column`."""


class ThreadView(QScrollArea):
    """The scrolling conversation of one session (or of a chat not started yet).

    The column is sized by hand (height for the viewport's width) rather than by
    `widgetResizable`, which would ask the whole thread for its height at its size
    hint's width as well, on every change.
    """

    retry_requested = Signal(int)
    settings_requested = Signal()
    history_loaded = Signal()
    allow_host_requested = Signal(str, bool)  # a card's "Allow 127.0.0.1…": (host, always)

    def __init__(self, session_id: int | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("threadView")
        self.session_id = session_id
        self.setWidgetResizable(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
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

        # One relayout per frame, however fast the deltas come.
        self._pending: list[str] = []
        self._frame = QTimer(self)
        self._frame.setInterval(FRAME_MS)
        self._frame.setTimerType(Qt.TimerType.PreciseTimer)
        self._frame.timeout.connect(self._apply_pending)

        self._history: list[list[AgentEvent]] = []  # turns not shown yet, oldest first
        self._history_at: int | None = None  # where history widgets go while it renders

        self._live: AssistantMessage | None = None
        self._thinking: QLabel | None = None
        self._stop_shown = False
        self._tool_cards: dict[str, ToolCard] = {}
        self._error_cards: list[ErrorCard] = []

        self._follow = True
        self._scroll_pending = False
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)

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

    # -- building the column ------------------------------------------------------

    def _add(self, widget: QWidget) -> None:
        if self.empty_hint.isVisibleTo(self):
            self.empty_hint.hide()
        if self._history_at is not None:  # older history goes above what is already shown
            self._layout.insertWidget(self._history_at, widget)
            self._history_at += 1
        else:
            self._layout.insertWidget(self._layout.count() - 1, widget)
        widget.show()  # now, not on the next turn of the loop (see MarkdownView)

    def _remove(self, widget: QWidget) -> None:
        self._layout.removeWidget(widget)
        widget.hide()
        widget.deleteLater()

    def items(self) -> list[QWidget]:
        """The widgets of the thread, top to bottom."""
        found = []
        for index in range(self._layout.count()):
            item = self._layout.itemAt(index)
            widget = item.widget() if item is not None else None
            if widget is not None and widget is not self.empty_hint:
                found.append(widget)
        return found

    def rendered_text(self) -> str:
        """What a person can read in the thread, top to bottom, as plain text."""
        parts: list[str] = []
        for item in self.items():
            if isinstance(item, AssistantMessage):
                for view in item.body.block_views():
                    if isinstance(view, ProseBlockView):
                        parts.append(view.plain_text())
                    else:
                        parts.append(view.block.code)
                if item.marker.isVisibleTo(item):
                    parts.append(item.marker.text())
            elif isinstance(item, QLabel):
                parts.append(item.text())
            elif hasattr(item, "plain_text"):
                parts.append(item.plain_text())
        return "\n".join(parts)

    def add_user_message(self, text: str) -> UserBubble:
        bubble = UserBubble(text)
        self._follow = True  # sending means wanting to see the answer
        self._add(bubble)
        return bubble

    def add_notice(self, text: str, kind: str = "info") -> NoticeLine:
        line = NoticeLine(text, kind)
        self._add(line)
        return line

    def add_error(self, failure: TurnFailed) -> ErrorCard:
        card = ErrorCard(failure)
        card.retry_clicked.connect(self._on_retry_clicked)
        card.settings_clicked.connect(self.settings_requested)
        self._error_cards.append(card)
        self._add(card)
        return card

    def error_cards(self) -> list[ErrorCard]:
        return list(self._error_cards)

    def set_busy(self, busy: bool) -> None:
        """While a turn runs in this session, Retry would start a second one: disable it."""
        for card in self._error_cards:
            card.set_retry_enabled(not busy)

    def _on_retry_clicked(self) -> None:
        if self.session_id is not None:
            self.retry_requested.emit(self.session_id)

    # -- history ------------------------------------------------------------------

    def load(self, turns: list[list[AgentEvent]]) -> None:
        """Render a session's history (its turns replayed as events, oldest first): the
        newest at once, older ones between frames.

        A long session would otherwise hold the window for a second or more. Turns (a
        prompt and everything that answered it, tool calls included) are rendered newest
        first, each above the last, until about a screenful is there; the rest follows in
        slices of HISTORY_SLICE_CHARS per turn of the event loop. `history_loaded` fires
        when all is shown.
        """
        self._history = list(turns)
        self._follow = True
        self._load_history(HISTORY_FIRST_CHARS)

    @property
    def loading_history(self) -> bool:
        return bool(self._history)

    def _load_older_history(self) -> None:
        self._load_history(HISTORY_SLICE_CHARS)

    def _load_history(self, budget: int) -> None:
        bar = self.verticalScrollBar()
        from_bottom = bar.maximum() - bar.value()
        rendered = 0
        while self._history and rendered < budget:
            turn = self._history.pop()
            self._history_at = 1  # right below the (hidden) empty-thread hint
            try:
                self._replay(turn)
            finally:
                self._history_at = None
            rendered += sum(_cost(event) for event in turn)
        if not self._follow:
            # The person scrolled up to read: what they read stays where it is on screen.
            self._fit_column()
            self._layout.activate()
            bar.setValue(bar.maximum() - from_bottom)
        if self._history:
            QTimer.singleShot(0, self, self._load_older_history)
        else:
            self.history_loaded.emit()

    def _replay(self, turn: list[AgentEvent]) -> None:
        """One stored turn: the live events, with each reply's text laid out whole."""
        text: list[str] = []
        last: AssistantMessage | None = None

        def flush_text() -> None:
            nonlocal last
            if "".join(text).strip():
                last = AssistantMessage(self.base_pt)
                last.body.set_markdown("".join(text))
                self._add(last)
            text.clear()

        for event in turn:
            if isinstance(event, TextDelta):
                text.append(event.text)
                continue
            flush_text()
            if isinstance(event, MessageCommitted) and event.role == "assistant":
                if event.status != "complete":
                    if last is not None:
                        last.mark(event.status)
                    else:
                        self.add_notice(
                            STOPPED if event.status == "stopped" else INTERRUPTED, "stopped"
                        )
                last = None
            elif isinstance(event, PromptAdded | ToolStarted | ToolFinished):
                self._show_event(event)
        flush_text()

    # -- live events --------------------------------------------------------------

    def handle(self, event: AgentEvent) -> None:
        """Render one agent event for this session."""
        if isinstance(event, TextDelta):
            self._pending.append(event.text)
            if not self._frame.isActive():
                # Show the first text at once, then pace whatever follows per frame. The
                # timer runs first so that the scroll this text needs waits for the next
                # tick, when the new text is painted (see _fit_column).
                self._frame.start()
                self._apply_pending(everything=True)
            return
        self.flush()
        if isinstance(event, TurnStarted | MessageStarted):
            self._live = None
            self._show_thinking()
        elif isinstance(event, PromptAdded | ToolStarted | ToolFinished):
            self._hide_thinking()
            self._show_event(event)
        elif isinstance(event, ToolProgress):
            if running := self._tool_cards.get(event.tool_use_id):
                running.add_progress(event.line)
        elif isinstance(event, MessageCommitted):
            if event.role == "assistant":
                self._end_live(event.status)
        elif isinstance(event, TurnFinished):
            self._hide_thinking()
            if event.notice:
                self.add_notice(event.notice, "warning")
        elif isinstance(event, TurnFailed):
            self._hide_thinking()
            self._end_live("failed")
            self.add_error(event)

    def _show_event(self, event: PromptAdded | ToolStarted | ToolFinished) -> None:
        """What a live turn and a replayed one show alike: prompts and tool cards."""
        if isinstance(event, PromptAdded):
            if self._history_at is None:
                self.add_user_message(event.text)  # sent now: follow the answer
            else:
                self._add(UserBubble(event.text))
        elif isinstance(event, ToolStarted):
            started = ToolCard(event.label or event.name, event.summary)
            started.allow_requested.connect(self.allow_host_requested)
            self._tool_cards[event.tool_use_id] = started
            self._add_tool_card(started)
        else:
            card = self._tool_cards.get(event.tool_use_id)
            if card is None:  # a result whose call was not shown: never show its internal id
                card = self._tool_cards[event.tool_use_id] = ToolCard(UNNAMED_CALL)
                self._add_tool_card(card)
            card.finish(
                is_error=event.is_error,
                summary=event.summary,
                images=event.images,
                outcome=event.outcome,
                notices=event.notices,
                offers=event.offers,
            )

    def _add_tool_card(self, card: ToolCard) -> None:
        """A call right after another joins it in one "N steps" run (made on the second)."""
        at = self._history_at if self._history_at is not None else self._layout.count() - 1
        item = self._layout.itemAt(at - 1)
        previous = item.widget() if item is not None else None
        if isinstance(previous, ToolRun):
            previous.add(card)
        elif isinstance(previous, ToolCard):
            run = ToolRun()
            self._layout.replaceWidget(previous, run)
            run.show()
            run.add(previous)
            run.add(card)
        else:
            self._add(card)

    def turn_ended(self, *, stopped: bool) -> None:
        """The turn's task is over; if it was stopped, say so where it stopped."""
        self.flush()
        self._hide_thinking()
        self._end_live("stopped" if stopped else "complete")
        if stopped and not self._stop_shown:
            self.add_notice(STOPPED, "stopped")
        self._stop_shown = False

    def flush(self) -> None:
        """Apply buffered text now (before anything else is added below it)."""
        self._frame.stop()
        self._apply_pending(everything=True)

    def _next_text(self, everything: bool) -> str:
        """The waiting text to show in this frame (see PACE_SHARE)."""
        waiting = "".join(self._pending)
        self._pending.clear()
        count = (
            len(waiting) if everything else max(PACE_MIN_CHARS, round(len(waiting) * PACE_SHARE))
        )
        if count < len(waiting):
            self._pending.append(waiting[count:])
        return waiting[:count]

    def _apply_pending(self, everything: bool = False) -> None:
        self._catch_up_scroll()
        if not self._pending:
            self._frame.stop()  # the stream paused or ended: no idle ticking
            return
        text = self._next_text(everything)
        if self._live is None:
            self._hide_thinking()
            self._live = AssistantMessage(self.base_pt)
            self._add(self._live)
        self._live.body.append(text, show=False)
        self._lay_out_now([*self._live.body.take_changed(), self._live])
        self._live.body.show_new()

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

    def _end_live(self, status: str) -> None:
        if self._live is None:
            return
        self._live.body.finish()
        self._live.mark(status)
        if status == "stopped":
            self._stop_shown = True
        self._live = None

    def _show_thinking(self) -> None:
        if self._thinking is None:
            self._thinking = QLabel("Claude is thinking…")
            self._thinking.setObjectName("thinking")
            self._add(self._thinking)

    def _hide_thinking(self) -> None:
        if self._thinking is not None:
            self._remove(self._thinking)
            self._thinking = None

    # -- scrolling and width ------------------------------------------------------

    def _on_scrolled(self, value: int) -> None:
        self._follow = value >= self.verticalScrollBar().maximum() - BOTTOM_SLACK_PX
        if not self._follow:
            self._scroll_pending = False  # the person scrolled away: leave them there

    def is_at_bottom(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - BOTTOM_SLACK_PX

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


def _cost(event: AgentEvent) -> int:
    """What showing an event costs, in characters of text (see HISTORY_FIRST_CHARS)."""
    if isinstance(event, TextDelta | PromptAdded):
        return len(event.text)
    return EVENT_CHARS if isinstance(event, ToolStarted | MessageCommitted) else 0


STYLE = """
#threadStack { border: 2px solid transparent; border-radius: 6px; }
#threadStack[focused="true"] { border-color: $focus; }
#thinking { color: $text_faint; font-style: italic; }
#emptyThread { color: $text_faint; padding-top: 120px; }
"""
