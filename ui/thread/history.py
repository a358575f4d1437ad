"""How a stored chat is shown in slices: its turns cut into pieces, and what each costs.

A long chat would otherwise hold the window for a second or more: `ThreadView.load` shows
the newest pieces at once, about a screenful, and the older ones between frames.
"""

from __future__ import annotations

from desktop.chat.events import (
    AgentEvent,
    MessageCommitted,
    PromptAdded,
    TextDelta,
    ToolFinished,
    ToolStarted,
)

# History shown at once when a session opens (about a screenful), then per later slice.
FIRST_CHARS = 8_000
SLICE_CHARS = 4_000
EVENT_CHARS = 200  # what a card or a message costs beyond its text


def pieces(turns: list[list[AgentEvent]]) -> list[list[AgentEvent]]:
    """Every turn cut where a reply starts after tool results, oldest first.

    A turn of many replies is shown reply by reply, not all in one go. A piece holds a
    reply's text, then its calls, and the calls of replies without text that follow:
    live, calls in a row fold into one "N steps" run, so a run is never cut.
    """
    found: list[list[AgentEvent]] = []
    for turn in turns:
        found.append([])
        for event in turn:
            after_results = bool(found[-1]) and isinstance(found[-1][-1], ToolFinished)
            if after_results and isinstance(event, TextDelta):
                found.append([])
            found[-1].append(event)
    return [piece for piece in found if piece]


def cost(piece: list[AgentEvent]) -> int:
    """What showing the piece costs, in characters of text (see FIRST_CHARS)."""
    return sum(_cost(event) for event in piece)


def _cost(event: AgentEvent) -> int:
    if isinstance(event, TextDelta | PromptAdded):
        return len(event.text)
    return EVENT_CHARS if isinstance(event, ToolStarted | MessageCommitted) else 0
