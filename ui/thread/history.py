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

    A turn of many replies (a long task, step after step) is shown reply by reply, not all
    in one go: a piece holds a reply's text, its commit, and its calls. Calls in a row
    fold into one "N steps" run though they come from several pieces (see
    ThreadView._add_tool_card).
    """
    found: list[list[AgentEvent]] = []
    for turn in turns:
        found.append([])
        for event in turn:
            after_results = bool(found[-1]) and isinstance(found[-1][-1], ToolFinished)
            if after_results and _starts_reply(event):
                found.append([])
            found[-1].append(event)
    return [piece for piece in found if piece]


def _starts_reply(event: AgentEvent) -> bool:
    return isinstance(event, TextDelta) or (
        isinstance(event, MessageCommitted) and event.role == "assistant"
    )


def cost(piece: list[AgentEvent]) -> int:
    """What showing the piece costs, in characters of text (see FIRST_CHARS)."""
    return sum(_cost(event) for event in piece)


def _cost(event: AgentEvent) -> int:
    if isinstance(event, TextDelta | PromptAdded):
        return len(event.text)
    return EVENT_CHARS if isinstance(event, ToolStarted | MessageCommitted) else 0
