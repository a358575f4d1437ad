"""One session's conversation: the person's bubbles, Claude's replies as Markdown, tool cards,
notices and error cards with Retry (the items are in ui/thread/items.py, the scrolling column
they sit in in ui/thread/column.py).

`ThreadView.handle(event)` renders the agent's events, live and reopened alike: a reopened
chat is the events its turns emitted (desktop/chat/transcript.py) fed through the same
`handle`. Batching is the only difference. Live, text deltas are buffered and applied at
most once per frame by a 10 ms timer, so a fast stream never causes one relayout per
token, and the column follows the newest text only while the person is at the bottom.
Reopened, a reply's text is applied whole, and older pieces go in above the newer ones
between frames (ui/thread/history.py).
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QWidget

from desktop.calls.sources.browser.hand import BROWSER
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
    TurnStopped,
)
from ui.thread import history
from ui.thread.column import JUMP_STYLE as JUMP_STYLE
from ui.thread.column import ThreadColumn
from ui.thread.earlier_versions import EarlierVersionsView
from ui.thread.items import (
    CONTINUED,
    STOPPED,
    AssistantMessage,
    ErrorCard,
    NoticeLine,
    TurnActions,
    UserBubble,
)
from ui.thread.tool_card import HAND_BACK, TAKE_OVER, ToolCard, ToolRun, _Line

# Text that arrives in lumps (a busy network or machine) is let out over the next few
# frames, so a reply keeps moving on every frame instead of jumping and pausing: each
# frame shows this share of the waiting text (at least PACE_MIN_CHARS), so a lump is
# out within a few dozen milliseconds and a steady stream waits about three frames.
PACE_SHARE = 0.3
PACE_MIN_CHARS = 12
UNNAMED_CALL = "A tool call"


class ThreadView(ThreadColumn):
    """The scrolling conversation of one session (or of a chat not started yet)."""

    retry_requested = Signal(int)
    settings_requested = Signal()
    history_loaded = Signal()
    allow_host_requested = Signal(str, bool)  # a card's "Allow 127.0.0.1…": (host, always)
    edit_requested = Signal(int, int, str)  # session, message, new text
    regenerate_requested = Signal(int)
    continue_requested = Signal(int)
    version_requested = Signal(int, int)  # session, the prompt of the version to make current
    browser_hand_requested = Signal(int)  # Take over / Hand back the chat's browser
    save_routine_requested = Signal(int)  # the last turn's Save as Routine…

    def __init__(self, session_id: int | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session_id = session_id
        self._pending: list[str] = []  # text not shown yet
        self._frame.timeout.connect(self._apply_pending)
        self._history: list[list[AgentEvent]] = []  # pieces not shown yet, oldest first
        self._live: AssistantMessage | None = None
        self._thinking: QLabel | None = None
        self._stop_shown = False
        self._joined_below = 0  # calls of this piece put in front of the run below it
        self._tool_cards: dict[str, ToolCard] = {}
        self._hand_line: _Line | None = None  # where the browser's Take over shows
        self._browser_taken = False
        self._error_cards: list[ErrorCard] = []
        self._bubbles: list[UserBubble] = []
        self._version_views: list[EarlierVersionsView] = []

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

    def set_turn_actions(self, *, regenerate: bool, continue_: bool, routine: bool = False) -> None:
        """Offer Regenerate, Continue and Save as Routine… under the last turn (the window
        knows which apply)."""
        if not regenerate and not continue_ and not routine:
            if self.turn_actions is not None:
                self.turn_actions.hide()
            return
        if self.turn_actions is None:
            self.turn_actions = TurnActions()
            self.turn_actions.regenerate_clicked.connect(self._on_regenerate)
            self.turn_actions.continue_clicked.connect(self._on_continue)
            self.turn_actions.save_routine_clicked.connect(self._on_save_routine)
            self._add_last(self.turn_actions)
        self.turn_actions.set_actions(regenerate=regenerate, continue_=continue_, routine=routine)

    def _on_save_routine(self) -> None:
        if self.session_id is not None and not self._busy:
            self.save_routine_requested.emit(self.session_id)

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
        card.set_retry_enabled(not self._busy)
        self._error_cards.append(card)
        self._add(card)
        return card

    def error_cards(self) -> list[ErrorCard]:
        return list(self._error_cards)

    def _add(self, widget: QWidget) -> None:
        super()._add(widget)
        if widget is not self._thinking:
            self._joined_below = 0  # the calls that follow join what is above them now
            self._stop_shown = False  # a stop said before is no longer the last word
            self._retire_answered_errors()

    def _retire_answered_errors(self) -> None:
        """An error card followed by more of the chat is history (see ErrorCard.retire)."""
        for card in self._error_cards:
            if not card.retired:
                following = self._widget_at(self._layout.indexOf(card) + 1)
                if following is not None and following not in (self._thinking, self.turn_actions):
                    card.retire()

    def resolve_errors(self, kinds: set[str], note: str) -> int:
        """Mark the error cards of these kinds as fixed; returns how many changed. Cards the
        chat went on from keep the words they had."""
        changed = 0
        for card in self._error_cards:
            if card.failure.error_kind in kinds and not card.resolved and not card.retired:
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

        Pieces of turns (see ui/thread/history.py) are rendered newest first, each above
        the last, until about a screenful is there; the rest follows in slices of
        history.SLICE_CHARS per turn of the event loop. `history_loaded` fires when all
        is shown.
        """
        self._history = history.pieces(turns)
        self._follow = True
        self._load_history(history.FIRST_CHARS)

    def reload(self, turns: list[list[AgentEvent]]) -> None:
        """Show the history afresh (after Edit or Regenerate replaced part of it)."""
        self.flush()
        self._clear()
        self._live = None
        self._thinking = None
        self._stop_shown = False
        self._tool_cards.clear()
        self._error_cards.clear()
        self._bubbles.clear()
        self._version_views.clear()
        self.load(turns)

    @property
    def loading_history(self) -> bool:
        return bool(self._history)

    def _load_older_history(self) -> None:
        self._load_history(history.SLICE_CHARS)

    def _load_history(self, budget: int) -> None:
        bar = self.verticalScrollBar()
        from_bottom = bar.maximum() - bar.value()
        rendered = 0
        while self._history and rendered < budget:
            piece = self._history.pop()
            self._show_piece(piece)
            rendered += history.cost(piece)
        if not self._follow:
            # The person scrolled up to read: what they read stays where it is on screen.
            self._fit_column()
            self._layout.activate()
            bar.setValue(bar.maximum() - from_bottom)
        if self._history:
            QTimer.singleShot(0, self, self._load_older_history)
        else:
            self.history_loaded.emit()

    def _show_piece(self, piece: list[AgentEvent]) -> None:
        """A stored piece, rendered as live output is, right below the (hidden) empty hint.

        A turn may be running below meanwhile: its text so far is shown first, and its reply
        and thinking line are left as they are."""
        self.flush()
        live, stop_shown = self._live, self._stop_shown
        self._live, self._stop_shown, self._joined_below = None, False, 0
        self._history_at = 1
        try:
            for event in piece:
                self.handle(event)
            self.flush()
        finally:
            self._history_at = None
            self._live, self._stop_shown = live, stop_shown

    # -- events -------------------------------------------------------------------

    def handle(self, event: AgentEvent) -> None:
        """Render one agent event for this session (live, or replayed from the store)."""
        if isinstance(event, TextDelta):
            self._pending.append(event.text)
            if not self.batching and not self._frame.isActive():
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
            return
        if isinstance(event, ToolProgress):
            if running := self._tool_cards.get(event.tool_use_id):
                running.add_progress(event.line)
            return
        if isinstance(event, MessageCommitted):
            if event.role == "assistant":
                self._end_live(event.status)
            return
        self._hide_thinking()
        if isinstance(event, PromptAdded):
            self._add_prompt(event)
        elif isinstance(event, ReplyContinued):
            if not self.batching:
                self._follow = True  # asking for more means wanting to see it
            self.add_notice(CONTINUED, "stopped")
        elif isinstance(event, EarlierVersions):
            self._add_versions(event)
        elif isinstance(event, ToolStarted):
            started = ToolCard(
                event.label or event.name,
                event.summary,
                source=event.source,
                source_title=event.source_title,
            )
            started.allow_requested.connect(self.allow_host_requested)
            self._tool_cards[event.tool_use_id] = started
            self._add_tool_card(started)
            if event.source == BROWSER:
                self._offer_browser_hand(started)
        elif isinstance(event, ToolFinished):
            self._finish_tool_card(event)
        elif isinstance(event, TurnFinished):
            if event.notice:
                self.add_notice(event.notice, "warning")
        elif isinstance(event, TurnFailed):
            self._end_live("failed")
            self.add_error(event)
        elif isinstance(event, TurnStopped):
            self._show_stop()

    def _add_prompt(self, event: PromptAdded) -> None:
        if self.batching:
            self._add(self._bubble(event.text, event))
        else:
            self.add_user_message(event.text, event)  # sent now: follow the answer

    def _add_versions(self, event: EarlierVersions) -> None:
        versions = EarlierVersionsView(event, self.base_pt)
        versions.set_busy(self._busy)
        versions.version_chosen.connect(self._on_version_chosen)
        self._version_views.append(versions)
        self._add(versions)

    def _finish_tool_card(self, event: ToolFinished) -> None:
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
            effect=event.effect,
        )

    def _add_tool_card(self, card: ToolCard) -> None:
        """Calls in a row are one "N steps" run (made on the second): a call joins the call or
        run right above where it goes, or else the one right below, in front of it, after
        the calls that joined it there before (older history goes in above what is shown:
        a run's older calls come after its newer ones; live, nothing is below)."""
        at = self._insert_index()
        above, below = self._widget_at(at - 1), self._widget_at(at)
        if isinstance(above, ToolRun | ToolCard):
            run = above if isinstance(above, ToolRun) else self._fold(above)
            run.add(card)
        elif isinstance(below, ToolRun | ToolCard):
            run = below if isinstance(below, ToolRun) else self._fold(below)
            run.add(card, at=self._joined_below)
            self._joined_below += 1
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

    def _fold(self, card: ToolCard) -> ToolRun:
        """A run in the card's place, holding it."""
        run = ToolRun()
        self._layout.replaceWidget(card, run)
        run.show()
        run.add(card)
        return run

    def _show_stop(self) -> None:
        """Say where the turn stopped: on its reply's last line, or on a line of its own."""
        self._end_live("stopped")
        if not self._stop_shown:
            self.add_notice(STOPPED, "stopped")
            self._stop_shown = True

    def turn_ended(self, *, stopped: bool) -> None:
        """The turn's task is over (a stop was said by its TurnStopped, or is said now)."""
        self.flush()
        self._hide_thinking()
        if stopped:
            self._show_stop()
        self._end_live("complete")
        self._stop_shown = False

    # -- text -----------------------------------------------------------------------

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
        if not self.batching:
            self._catch_up_scroll()
        if not self._pending:
            self._frame.stop()  # the stream paused or ended: no idle ticking
            return
        text = self._next_text(everything)
        if self.batching:
            # The whole text at once, in a reply built before it is shown: shown first, it
            # would be laid out empty, then again with its text.
            message = self._live or AssistantMessage(self.base_pt)
            message.body.append(text)
            if self._live is None:
                self._live = message
                self._add(message)
            return
        if self._live is None:
            self._hide_thinking()
            self._live = AssistantMessage(self.base_pt)
            self._add(self._live)
        self._live.body.append(text, show=False)
        self._lay_out_now([*self._live.body.take_changed(), self._live])
        self._live.body.show_new()

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
        if self._thinking is not None and not self.batching:  # history is not what it awaits
            self._remove(self._thinking)
            self._thinking = None


STYLE = """
#threadStack { border: 2px solid transparent; border-radius: 6px; }
#threadStack[focused="true"] { border-color: $focus; }
#thinking { color: $text_faint; font-style: italic; }
#emptyThread { color: $text_faint; padding-top: 120px; }
"""
