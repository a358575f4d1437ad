"""Tool calls in the thread: one line per call, and one "N steps" card per run of calls.

A `ToolCard` is a single line: an icon for what the call works with, its label, a short
target and its status in a person's words (`desktop.calls.card_text`). Its details (the full
summary, what the outcome means, progress and images) open with the arrow or a click on
the line. Consecutive calls fold into a `ToolRun`, whose line sums them up. Both are built
from the agent's events alone, so a reopened chat shows exactly what was shown live.

The words' table loads with the first card: it holds every tool's fixed phrases, which the
window does not need to show.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui import icons, theme
from ui.boxes import boxed
from ui.thread.image_viewer import ImageThumbnail, ImageViewer
from ui.thread.labels import StableHints, WrappingLabel
from ui.thread.rich_text import HINT_WIDTH, MIN_WIDTH

if TYPE_CHECKING:
    from desktop.calls.card_text import CardWords, Outcome

MAX_PROGRESS_LINES = 6
ICON_SIZE = 16
RUNNING = "Running…"
TAKE_OVER = "Take over"
HAND_BACK = "Hand back"
# Worst first: a run's line takes the colour of the worst way one of its calls ended.
SEVERITY = (
    "failed",
    "blocked",
    "denied",
    "differs",
    "no_effect",
    "stopped",
    "skipped",
    "unconfirmed",
    "running",
    "done",
)
STATE_COLOURS = {
    "running": "accent",
    "done": "success",
    "failed": "danger",
    "denied": "warning",
    "blocked": "warning",
    "differs": "warning",
    "no_effect": "warning",
    "stopped": "text_faint",
    "skipped": "text_faint",
    "unconfirmed": "text_muted",
}
# A run's line counts its calls by how they ended, in these words.
RUN_WORDS = {
    "done": "done",
    "failed": "failed",
    "denied": "denied by you",
    "differs": "not as asked",
    "no_effect": "no change",
    "unconfirmed": "not confirmed",
}


def _plain_label(text: str, object_name: str) -> WrappingLabel:
    label = WrappingLabel(text)
    label.setObjectName(object_name)
    policy = label.sizePolicy()
    policy.setRetainSizeWhenHidden(False)  # an empty part of the details takes no room
    label.setSizePolicy(policy)
    return label


def _restyle(widget: QWidget) -> None:
    # Dynamic properties used by the style sheet only apply after a re-polish.
    widget.style().unpolish(widget)
    widget.style().polish(widget)


class ElidedLabel(QLabel):
    """One line of text cut with "…" to the width it gets; `text()` is the whole text."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text if text else "")

    def sizeHint(self) -> QSize:
        return QSize(0, self.fontMetrics().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.fontMetrics().height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        metrics = self.fontMetrics()
        shown = metrics.elidedText(self.text(), Qt.TextElideMode.ElideRight, self.width())
        painter.drawText(
            self.rect(), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown
        )
        painter.end()


class _Line(QWidget):
    """A card's one line: arrow, icon, title, target, status. A click on it opens the card."""

    clicked = Signal()

    def __init__(self, title: str, icon: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolLine")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.toggle = QToolButton()
        self.toggle.setObjectName("toolToggle")
        self.toggle.setAutoRaise(True)
        self.toggle.setIconSize(QSize(ICON_SIZE - 4, ICON_SIZE - 4))
        self.expanded = False
        self.toggle.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.toggle.setToolTip("Show details")
        self.toggle.setAccessibleName("Show details")
        self.icon_name = icon
        self.icon = QLabel()
        self.icon.setObjectName("toolIcon")
        self.icon.setFixedSize(ICON_SIZE, ICON_SIZE)
        self.title = QLabel(title)
        self.title.setObjectName("toolTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.detail = ElidedLabel()
        self.detail.setObjectName("toolDetail")
        self.images = QLabel()
        self.images.setObjectName("toolImages")
        self.images.hide()
        self.state_icon = QLabel()
        self.state_icon.setFixedSize(ICON_SIZE - 2, ICON_SIZE - 2)
        self.state = QLabel(RUNNING)
        self.state.setObjectName("toolState")
        self.state.setTextFormat(Qt.TextFormat.PlainText)
        # The browser's Take over / Hand back, on the line of its newest call (ui/thread/view.py).
        self.hand = QToolButton()
        self.hand.setObjectName("toolHand")
        self.hand.setText(TAKE_OVER)
        self.hand.setCursor(Qt.CursorShape.PointingHandCursor)
        self.hand.hide()
        boxed(
            QHBoxLayout(self),
            self.toggle,
            self.icon,
            self.title,
            (self.detail, 1),
            self.images,
            self.state_icon,
            self.state,
            self.hand,
            margins=(0, 0, 0, 0),
            spacing=7,
        )

    def paint_icons(self, state: str) -> None:
        colours = theme.current().tokens()
        ratio = self.devicePixelRatioF()
        arrow = icons.pixmap(
            "open" if self.expanded else "closed", colours["text_muted"], 12, ratio
        )
        self.toggle.setIcon(QIcon(arrow))
        self.icon.setPixmap(icons.pixmap(self.icon_name, colours["text_muted"], ICON_SIZE, ratio))
        self.state_icon.setPixmap(
            icons.pixmap(
                state, colours[STATE_COLOURS.get(state, "text_muted")], ICON_SIZE - 2, ratio
            )
        )

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
            event.position().toPoint()
        ):
            self.clicked.emit()
        super().mouseReleaseEvent(event)


class _Expandable(StableHints, QFrame):
    """A line that opens onto a body; shut until the person opens it.

    Its width hint stays constant (see ui/thread/labels.py); its height is the line's while shut,
    and follows the body's wrapped text (height for width) while open.
    """

    def sizeHint(self) -> QSize:
        layout = self.layout()
        return QSize(HINT_WIDTH, layout.sizeHint().height() if layout is not None else 0)

    def minimumSizeHint(self) -> QSize:
        layout = self.layout()
        return QSize(MIN_WIDTH, layout.minimumSize().height() if layout is not None else 0)

    def _build(self, line: _Line, body: QWidget) -> None:
        self.line = line
        self.body = body
        self.expanded = False
        body.hide()
        line.toggle.clicked.connect(lambda: self.set_expanded(not self.expanded))
        line.clicked.connect(lambda: self.set_expanded(not self.expanded))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 5, 10, 5)
        layout.setSpacing(4)
        layout.addWidget(line)
        layout.addWidget(body)
        theme.theme().changed.connect(self._repaint_icons)

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = self.line.expanded = expanded
        self._repaint_icons()
        tip = "Hide details" if expanded else "Show details"
        self.line.toggle.setToolTip(tip)
        self.line.toggle.setAccessibleName(tip)
        self.body.setVisible(expanded)

    def _set_state(self, state: str) -> None:
        self.setProperty("state", state)
        self.line.state.setProperty("state", state)
        _restyle(self)
        _restyle(self.line.state)
        self.line.paint_icons(state)

    def _repaint_icons(self, _palette: object = None) -> None:
        self.line.paint_icons(str(self.property("state")))


class ToolCard(_Expandable):
    """One tool call on one line; its details open below it (at once when it offers the
    person a way forward, such as letting a refused local address through)."""

    changed = Signal()  # it finished (a run updates its own line)
    # The person lets a refused host through: (host, always); in this chat when not always.
    allow_requested = Signal(str, bool)

    def __init__(
        self,
        label: str,
        detail: str = "",
        parent: QWidget | None = None,
        *,
        source: str = "",
        source_title: str = "",
    ) -> None:
        super().__init__(parent)
        self.setObjectName("toolCard")
        self.label = label
        self.summary = detail
        # Where the call comes from, as its event said (a call nothing names goes by its label).
        self.source = source
        self.source_title = source_title or label
        line = _Line(label, icons.for_source(source))
        self.title = line.title
        self.detail = line.detail
        from desktop.calls.card_text import card_target

        self.detail.setText(card_target(label, detail))
        self.state = line.state
        self.full_summary = _plain_label(detail, "toolSummary")
        self.note = _plain_label("", "toolNote")
        self.progress = _plain_label("", "toolProgress")
        self.outcome = _plain_label("", "toolOutcome")
        self.notices = _plain_label("", "toolNotices")
        self.offers = QHBoxLayout()
        self.offers.setContentsMargins(0, 2, 0, 0)
        self.offer_buttons: list[QToolButton] = []
        self.images = QHBoxLayout()
        self.images.setContentsMargins(0, 4, 0, 0)
        self.images.setSpacing(8)
        self.thumbnails: list[ImageThumbnail] = []
        self._viewers: list[ImageViewer] = []
        self._lines: list[str] = []
        self.ending: CardWords | None = None
        body = QWidget()
        body.setObjectName("toolBody")
        column = QVBoxLayout(body)
        column.setContentsMargins(47, 0, 0, 4)
        column.setSpacing(4)
        for widget in (self.full_summary, self.note, self.progress, self.outcome, self.notices):
            column.addWidget(widget)
        column.addLayout(self.offers)
        column.addLayout(self.images)
        self._build(line, body)
        self._set_state("running")
        self._update_body()

    def _update_body(self) -> None:
        # The full summary only when the line shows less of it than there is.
        self.full_summary.setVisible(bool(self.summary) and self.detail.text() != self.summary)
        self.note.setVisible(bool(self.note.text()))
        self.progress.setVisible(bool(self._lines))
        self.outcome.setVisible(bool(self.outcome.text()))
        self.notices.setVisible(bool(self.notices.text()))

    def add_progress(self, line: str) -> None:
        # Only the latest lines matter while it runs; a chatty tool must not grow the thread.
        self._lines = [*self._lines, line][-MAX_PROGRESS_LINES:]
        self.progress.setText("\n".join(self._lines))
        self._update_body()

    def finish(
        self,
        *,
        is_error: bool,
        summary: str,
        images: Sequence[str] | int = (),
        outcome: str | None = None,
        notices: Sequence[str] = (),
        offers: Sequence[str] = (),
        effect: Outcome | None = None,
    ) -> None:
        """How the call ended: `summary` is what the model read, shown only where it helps;
        `effect` what it really did; `notices` are for the person, `offers` hosts they may let
        through."""
        from desktop.calls.card_text import card_words

        ending = card_words(
            outcome or ("error" if is_error else "ok"),
            summary,
            effect,
            source=self.source,
            source_title=self.source_title,
        )
        self.ending = ending
        # Progress says what a running call is doing; once it ended, how it ended does. Kept,
        # it would show live only: a reopened chat has no progress to show.
        self._lines = []
        self.progress.clear()
        self.state.setText(ending.status)
        self.note.setText(ending.detail)
        self.outcome.setText(summary.strip() if ending.show_result else "")
        self.notices.setText("\n".join(notices))
        for host in offers:
            self._offer(host)
        if offers:
            self.set_expanded(True)  # a way forward is not hidden behind the arrow
        paths = [] if isinstance(images, int) else list(images)
        for path in paths:
            thumbnail = ImageThumbnail(path)
            thumbnail.opened.connect(self.open_image)
            self.thumbnails.append(thumbnail)
            self.images.addWidget(thumbnail)
        if paths:
            self.images.addStretch(1)
            self.line.images.setText(f"{len(paths)} image{'s' if len(paths) > 1 else ''}")
            self.line.images.show()
        self._update_body()
        self._set_state(ending.state)
        self.changed.emit()

    def _offer(self, host: str) -> None:
        """A button only the person can press: let `host` through, in this chat or always."""
        button = QToolButton()
        button.setObjectName("toolOffer")
        button.setText(f"Allow {host}…")
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(button)
        menu.addAction("In this chat", lambda: self.allow_requested.emit(host, False))
        menu.addAction("Always", lambda: self.allow_requested.emit(host, True))
        button.setMenu(menu)
        self.offer_buttons.append(button)
        self.offers.addWidget(button)
        self.offers.addStretch(1)

    def open_image(self, path: str) -> ImageViewer:
        viewer = ImageViewer(path, self.window())
        viewer.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._viewers = [v for v in self._viewers if shiboken6.isValid(v)] + [viewer]
        viewer.open()
        return viewer

    @property
    def finished(self) -> bool:
        return self.property("state") != "running"

    @property
    def state_name(self) -> str:
        return str(self.property("state"))

    def plain_text(self) -> str:
        parts = [self.title.text(), self.detail.text(), self.state.text(), self.note.text()]
        parts += [*self._lines, self.outcome.text(), self.notices.text()]
        return "\n".join(part for part in parts if part)


class ToolRun(_Expandable):
    """Consecutive tool calls folded into one line, "3 steps", that opens onto each call."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolRun")
        line = _Line("", "steps")
        self.title = line.title
        self.detail = line.detail
        self.state = line.state
        body = QWidget()
        body.setObjectName("toolRunBody")
        self._steps = QVBoxLayout(body)
        self._steps.setContentsMargins(14, 0, 0, 2)
        self._steps.setSpacing(2)
        self._build(line, body)
        self._set_state("running")

    def add(self, card: ToolCard, at: int | None = None) -> None:
        """Fold `card` in: last, or at step `at` (older history arrives above what is shown)."""
        self._steps.insertWidget(self._steps.count() if at is None else at, card)
        card.show()  # moved here from the thread, or new: it shows whenever the run is open
        card.setProperty("inRun", True)
        _restyle(card)
        card.changed.connect(lambda: self._card_changed(card))
        self._card_changed(card)

    def _card_changed(self, card: ToolCard) -> None:
        if card.offer_buttons:
            self.set_expanded(True)  # the card's way forward shows without a click
        self._update_line()

    def cards(self) -> list[ToolCard]:
        found = []
        for index in range(self._steps.count()):
            item = self._steps.itemAt(index)
            widget = item.widget() if item is not None else None
            if isinstance(widget, ToolCard):
                found.append(widget)
        return found

    def _update_line(self) -> None:
        cards = self.cards()
        self.title.setText(f"{len(cards)} steps")
        latest = cards[-1] if cards else None
        self.detail.setText(
            ", ".join(dict.fromkeys(card.source_title for card in cards))
            if latest is None or latest.finished
            else f"{latest.label} {latest.detail.text()}".strip()
        )
        states = [card.state_name for card in cards]
        if "running" in states:
            self.state.setText(RUNNING)
            self._set_state("running")
            return
        counts = {state: states.count(state) for state in SEVERITY if state in states}
        if set(counts) == {"done"}:
            self.state.setText("Done")
        else:
            self.state.setText(
                " · ".join(f"{n} {RUN_WORDS.get(state, state)}" for state, n in counts.items())
            )
        self._set_state(min(counts, key=SEVERITY.index))

    def plain_text(self) -> str:
        lines = [f"{self.title.text()}: {self.state.text()}"]
        return "\n".join([*lines, *(card.plain_text() for card in self.cards())])


STYLE = """
#toolHand {
    border: 1px solid $border; border-radius: 10px; padding: 1px 10px; color: $text;
}
#toolHand:hover { background: $hover; }
#toolCard, #toolRun {
    background: $raised; border: 1px solid $border_soft; border-radius: 8px;
}
#toolCard[inRun="true"] { background: transparent; border: none; }
#toolCard[state="failed"], #toolRun[state="failed"] { border-color: $danger_border; }
#toolCard[state="denied"], #toolRun[state="denied"],
#toolCard[state="blocked"], #toolRun[state="blocked"],
#toolCard[state="differs"], #toolRun[state="differs"],
#toolCard[state="no_effect"], #toolRun[state="no_effect"] { border-color: $warning_border; }
#toolTitle { font-weight: 600; color: $text; }
#toolDetail, #toolImages { color: $text_muted; }
#toolState { color: $text_muted; }
#toolState[state="done"] { color: $text_muted; }
#toolState[state="failed"] { color: $danger; font-weight: 600; }
#toolState[state="denied"], #toolState[state="blocked"],
#toolState[state="differs"], #toolState[state="no_effect"] { color: $warning; font-weight: 600; }
#toolState[state="running"] { color: $accent; }
#toolSummary, #toolProgress { color: $text_muted; }
#toolNote { color: $text; }
#toolOutcome { color: $text_muted; }
#toolNotices { color: $warning; }
#toolOffer {
    background: $surface; color: $text; border: 1px solid $border; border-radius: 6px;
    padding: 3px 22px 3px 10px;
}
#toolOffer::menu-indicator {
    image: url($arrow_down); subcontrol-origin: padding; subcontrol-position: center right;
    right: 6px;
}
#toolOffer:hover { background: $hover; }
#toolOffer:focus { border: 2px solid $focus; padding: 2px 21px 2px 9px; }
#toolToggle { border: none; padding: 0px; background: transparent; }
#toolToggle:focus { border: 2px solid $focus; border-radius: 4px; }
"""
