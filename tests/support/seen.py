"""What a person sees in a thread, read from its items top to bottom: bubbles, reply text and
how a reply ended, tool cards (line, state, what they say, images), notices, error cards and
the buttons they offer. Tests compare these, not the widgets' internals.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QAbstractButton, QLabel, QWidget

from ui.thread.earlier_versions import EarlierVersionsView
from ui.thread.items import AssistantMessage, ErrorCard, NoticeLine, TurnActions, UserBubble
from ui.thread.markdown.view import ProseBlockView
from ui.thread.tool_card import ToolCard, ToolRun
from ui.thread.view import ThreadView
from ui.window.main_window import MainWindow

Seen = tuple[object, ...]


def _shown(widget: QWidget, inside: QWidget) -> bool:
    return widget.isVisibleTo(inside)


def _buttons(widget: QWidget) -> list[str]:
    """The buttons offered, as the person reads them ("Retry", "Retried (off)")."""
    return [
        button.text() + ("" if button.isEnabled() else " (off)")
        for button in widget.findChildren(QAbstractButton)
        if _shown(button, widget)
    ]


def reply_text(message: AssistantMessage) -> str:
    """A reply's blocks as their text reads on screen (no trailing blanks, which no one sees)."""
    parts = [
        (view.plain_text() if isinstance(view, ProseBlockView) else view.block.code).rstrip()
        for view in message.body.block_views()
    ]
    return "\n".join(parts)


def card(card: ToolCard) -> Seen:
    """A call's line (label, target, images, state) and, opened, what it says."""
    images = card.line.images.text() if _shown(card.line.images, card.line) else ""
    return (
        "card",
        card.title.text(),
        card.detail.text(),
        images,
        card.state.text(),
        card.state_name,
        card.note.text(),
        card.progress.text(),
        card.outcome.text(),
        card.notices.text(),
        [Path(thumbnail.path).name for thumbnail in card.thumbnails],
        [button.text() for button in card.offer_buttons],
    )


def item(widget: QWidget) -> Seen:
    """One item of the thread as the person sees it."""
    if isinstance(widget, UserBubble):
        names = widget.attachments.names() if widget.attachments is not None else []
        return (
            "you",
            widget.label.text(),
            names,
            "Edit" if not widget.edit_button.isHidden() else "",
        )
    if isinstance(widget, AssistantMessage):
        marker = widget.marker.text() if _shown(widget.marker, widget) else ""
        return ("claude", reply_text(widget), marker)
    if isinstance(widget, ToolRun):
        line = (widget.title.text(), widget.detail.text(), widget.state.text())
        return ("run", *line, [card(step) for step in widget.cards()])
    if isinstance(widget, ToolCard):
        return card(widget)
    if isinstance(widget, NoticeLine):
        return ("notice", str(widget.property("kind")), widget.label.text())
    if isinstance(widget, ErrorCard):
        return ("error", widget.title.text(), widget.detail.text(), _buttons(widget))
    if isinstance(widget, EarlierVersionsView):
        return ("versions", widget.plain_text())
    if isinstance(widget, TurnActions):
        return ("actions", _buttons(widget))
    if isinstance(widget, QLabel):
        return ("label", widget.text())
    return ("other", type(widget).__name__)


def items(thread: ThreadView) -> list[Seen]:
    """Every item of the thread, top to bottom (hidden ones left out)."""
    return [item(widget) for widget in thread.items() if _shown(widget, thread.column)]


def _words(seen: object) -> list[str]:
    if isinstance(seen, str):
        return [seen] if seen else []
    if isinstance(seen, list | tuple):
        return [word for part in seen for word in _words(part)]
    return []


def text(thread: ThreadView) -> str:
    """All the words the thread shows, top to bottom, one item's parts a line each."""
    return "\n".join(word for seen in items(thread) for word in _words(seen[1:]))


def cards_in_order(window: MainWindow) -> list[ToolCard]:
    """Every call's card, top to bottom, those folded into an "N steps" run included."""
    found: list[ToolCard] = []
    for item in window.thread.items():
        if isinstance(item, ToolCard):
            found.append(item)
        elif isinstance(item, ToolRun):
            found.extend(item.cards())
    return found


def card_texts(window: MainWindow) -> list[tuple[str, str, str, str, str, int]]:
    """What a person reads on each call's card: label, target, status, what it means, the
    tool's own text, thumbnails."""
    return [
        (
            c.title.text(),
            c.detail.text(),
            c.state.text(),
            c.note.text(),
            c.outcome.text(),
            len(c.thumbnails),
        )
        for c in cards_in_order(window)
    ]
