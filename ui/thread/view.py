"""One session's conversation as a scrolling column: the person's bubbles, Claude's replies
as Markdown, tool cards, notices and error cards with Retry (the items themselves are in
ui/thread/items.py).

`ThreadView.handle(event)` renders the agent's events. Text deltas are buffered and
applied at most once per frame by a 10 ms timer, so a fast stream never causes one
relayout per token; the column follows the newest text only while the person is
already at the bottom, and a "Jump to latest" button takes them back down.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.calls.sources.browser_hand import BROWSER_TITLE
from desktop.chat.events import (
    AgentEvent,
    EarlierVersions,
    MessageCommitted,
    MessageStarted,
    PromptAdded,
    ReplyContinued,
    TextDelta,
    ToolFinished,
    ToolProgress,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from ui import theme
from ui.thread.earlier_versions import EarlierVersionsView
from ui.thread.items import (
    CONTINUED,
    INTERRUPTED,
    STOPPED,
    AssistantMessage,
    ErrorCard,
    NoticeLine,
    TurnActions,
    UserBubble,
)
from ui.thread.labels import DEFAULT_POINT_SIZE, StableHints
from ui.thread.markdown_view import ProseBlockView
from ui.thread.tool_card import HAND_BACK, TAKE_OVER, ToolCard, ToolRun, _Line

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
JUMP_MARGIN_PX = 14
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
    edit_requested = Signal(int, int, str)  # session, message, new text
    regenerate_requested = Signal(int)
    continue_requested = Signal(int)
    version_requested = Signal(int, int)  # session, the prompt of the version to make current
    browser_hand_requested = Signal(int)  # Take over / Hand back the chat's browser

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
        self._joined_front = 0  # see _add_tool_card

        self._live: AssistantMessage | None = None
        self._thinking: QLabel | None = None
        self._stop_shown = False
        self._tool_cards: dict[str, ToolCard] = {}
        self._hand_line: _Line | None = None  # where the browser's Take over shows
        self._browser_taken = False
        self._error_cards: list[ErrorCard] = []
        self._bubbles: list[UserBubble] = []
        self._version_views: list[EarlierVersionsView] = []
        self._busy = False
        self.turn_actions: TurnActions | None = None

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

    # -- building the column ------------------------------------------------------

    def _add(self, widget: QWidget) -> None:
        if self.empty_hint.isVisibleTo(self):
            self.empty_hint.hide()
        if self._history_at is not None:  # older history goes above what is already shown
            self._layout.insertWidget(self._history_at, widget)
            self._history_at += 1
        elif self.turn_actions is not None and widget is not self.turn_actions:
            # The last turn's actions stay under it, so whatever comes goes above them.
            self._layout.insertWidget(self._layout.indexOf(self.turn_actions), widget)
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
            elif isinstance(item, TurnActions | EarlierVersionsView | UserBubble | NoticeLine):
                parts.append(item.plain_text())
            elif hasattr(item, "plain_text"):
                parts.append(item.plain_text())
        return "\n".join(parts)

    def last_reply_text(self) -> str:
        """Claude's answer to the newest message: all its text, as Markdown."""
        replies: list[str] = []
        for item in reversed(self.items()):
            if isinstance(item, UserBubble):
                break
            if isinstance(item, AssistantMessage) and item.body.markdown().strip():
                replies.append(item.body.markdown().strip())
        return "\n\n".join(reversed(replies))

    def add_user_message(self, text: str, event: PromptAdded | None = None) -> UserBubble:
        bubble = self._bubble(text, event)
        self._follow = True  # sending means wanting to see the answer
        self._add(bubble)
        return bubble

    def _bubble(self, text: str, event: PromptAdded | None) -> UserBubble:
        bubble = UserBubble(
            text,
            message_id=event.message_id if event else None,
            attachments=event.attachments if event else None,
        )
        bubble.set_editable(not self._busy)
        bubble.edit_submitted.connect(self._on_edit_submitted)
        self._bubbles.append(bubble)
        return bubble

    def _on_edit_submitted(self, message_id: int, text: str) -> None:
        if self.session_id is not None and not self._busy:
            self.edit_requested.emit(self.session_id, message_id, text)

    def _on_version_chosen(self, message_id: int) -> None:
        if self.session_id is not None and not self._busy:
            self.version_requested.emit(self.session_id, message_id)

    def bubbles(self) -> list[UserBubble]:
        return [bubble for bubble in self.items() if isinstance(bubble, UserBubble)]

    # -- the last turn's actions ------------------------------------------------

    def set_turn_actions(self, *, regenerate: bool, continue_: bool) -> None:
        """Offer Regenerate and Continue under the last turn (the window knows which apply)."""
        if not regenerate and not continue_:
            if self.turn_actions is not None:
                self.turn_actions.hide()
            return
        if self.turn_actions is None:
            self.turn_actions = TurnActions()
            self.turn_actions.regenerate_clicked.connect(self._on_regenerate)
            self.turn_actions.continue_clicked.connect(self._on_continue)
            self._layout.insertWidget(self._layout.count() - 1, self.turn_actions)
        self.turn_actions.set_actions(regenerate=regenerate, continue_=continue_)

    def _on_regenerate(self) -> None:
        if self.session_id is not None and not self._busy:
            self.regenerate_requested.emit(self.session_id)

    def _on_continue(self) -> None:
        if self.session_id is not None and not self._busy:
            self.continue_requested.emit(self.session_id)

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

    def resolve_errors(self, kinds: set[str], note: str) -> int:
        """Mark the error cards of these kinds as fixed; returns how many changed."""
        changed = 0
        for card in self._error_cards:
            if card.failure.error_kind in kinds and not card.resolved:
                card.resolve(note)
                changed += 1
        return changed

    def set_busy(self, busy: bool) -> None:
        """While a turn runs in this session, Retry, Edit, Regenerate and Continue would start
        a second one, and a switch of versions would pull the history from under it: they
        are not offered."""
        self._busy = busy
        for card in self._error_cards:
            card.set_retry_enabled(not busy)
        for bubble in self._bubbles:
            bubble.set_editable(not busy)
        for versions in self._version_views:
            versions.set_busy(busy)
        if busy and self.turn_actions is not None:
            self.turn_actions.hide()
        self._update_jump()

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
        # A turn of many tool steps is shown step by step too, not all in one go.
        self._history = [piece for turn in turns for piece in _pieces(turn)]
        self._follow = True
        self._load_history(HISTORY_FIRST_CHARS)

    def reload(self, turns: list[list[AgentEvent]]) -> None:
        """Show the history afresh (after Edit or Regenerate replaced part of it)."""
        self.flush()
        for widget in self.items():
            self._remove(widget)
        self._live = None
        self._thinking = None
        self._stop_shown = False
        self._tool_cards.clear()
        self._error_cards.clear()
        self._bubbles.clear()
        self._version_views.clear()
        self.turn_actions = None
        self.load(turns)

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
        self._joined_front = 0  # calls of this piece that joined the run shown below it
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
            elif isinstance(event, TurnFinished) and event.notice:
                self.add_notice(event.notice, "warning")
            elif isinstance(
                event, PromptAdded | ToolStarted | ToolFinished | ReplyContinued | EarlierVersions
            ):
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
        elif isinstance(
            event, PromptAdded | ToolStarted | ToolFinished | ReplyContinued | EarlierVersions
        ):
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

    def _show_event(
        self, event: PromptAdded | ToolStarted | ToolFinished | ReplyContinued | EarlierVersions
    ) -> None:
        """What a live turn and a replayed one show alike: prompts, tool cards, versions."""
        if isinstance(event, PromptAdded):
            if self._history_at is None:
                self.add_user_message(event.text, event)  # sent now: follow the answer
            else:
                self._add(self._bubble(event.text, event))
        elif isinstance(event, ReplyContinued):
            if self._history_at is None:
                self._follow = True
            self.add_notice(CONTINUED, "stopped")
        elif isinstance(event, EarlierVersions):
            versions = EarlierVersionsView(event, self.base_pt)
            versions.set_busy(self._busy)
            versions.version_chosen.connect(self._on_version_chosen)
            self._version_views.append(versions)
            self._add(versions)
        elif isinstance(event, ToolStarted):
            started = ToolCard(event.label or event.name, event.summary)
            started.allow_requested.connect(self.allow_host_requested)
            self._tool_cards[event.tool_use_id] = started
            self._add_tool_card(started)
            if event.label.partition(":")[0] == BROWSER_TITLE:
                self._offer_browser_hand(started)
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
            self._fold(previous).add(card)
        elif self._history_at is not None and isinstance(
            following := self._widget_at(at), ToolRun | ToolCard
        ):
            # Older history goes in above: a call right before a shown run joins its front,
            # in order, so a reopened run reads as the live one did.
            run = following if isinstance(following, ToolRun) else self._fold(following)
            run.add(card, at=self._joined_front)
            self._joined_front += 1
        else:
            self._add(card)

    def _offer_browser_hand(self, card: ToolCard) -> None:
        """Take over / Hand back on the line that shows the browser's newest call: its own, or
        its run's when it is folded into one."""
        holder: QWidget | None = card
        while holder is not None and not isinstance(holder, ToolRun):
            holder = holder.parentWidget()
            if holder is self:
                holder = None
        line = holder.line if isinstance(holder, ToolRun) else card.line
        if self._hand_line is not None and self._hand_line is not line:
            if shiboken6.isValid(self._hand_line):
                self._hand_line.hand.hide()
        if self._hand_line is not line:
            line.hand.clicked.connect(self._browser_hand_clicked)
        self._hand_line = line
        self.set_browser_hand(self._browser_taken)
        line.hand.show()

    def _browser_hand_clicked(self) -> None:
        if self.session_id is not None:
            self.browser_hand_requested.emit(self.session_id)

    def set_browser_hand(self, taken: bool) -> None:
        """Whether the person has the browser now (the button then reads Hand back)."""
        self._browser_taken = taken
        if self._hand_line is not None and shiboken6.isValid(self._hand_line):
            self._hand_line.hand.setText(HAND_BACK if taken else TAKE_OVER)

    def _widget_at(self, index: int) -> QWidget | None:
        item = self._layout.itemAt(index)
        return item.widget() if item is not None else None

    def _fold(self, card: ToolCard) -> ToolRun:
        """A run in the card's place, holding it."""
        run = ToolRun()
        self._layout.replaceWidget(card, run)
        run.show()
        run.add(card)
        return run

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


JUMP_STYLE = """
#jumpToLatest {
    background: palette(base); color: palette(window-text); border: 1px solid palette(mid);
    border-radius: 14px; padding: 5px 14px;
}
#jumpToLatest:hover { background: palette(alternate-base); }
"""


def _pieces(turn: list[AgentEvent]) -> list[list[AgentEvent]]:
    """A turn cut where a reply starts after tool results: each piece holds a reply's text,
    its tool calls and their results, so every card is started and finished in one piece."""
    pieces: list[list[AgentEvent]] = [[]]
    for event in turn:
        after_results = bool(pieces[-1]) and isinstance(pieces[-1][-1], ToolFinished)
        if after_results and isinstance(event, TextDelta | ToolStarted):
            pieces.append([])
        pieces[-1].append(event)
    return [piece for piece in pieces if piece]


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
