"""A stored chat replayed as the events its live turns emitted, so it renders the same way.

Each tool card comes from what was stored beside its `tool_result` (label, summary,
outcome); calls stored before cards were kept are described again by their source, the
same way a live call is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from desktop.events import (
    AgentEvent,
    MessageCommitted,
    PromptAdded,
    TextDelta,
    ToolFinished,
    ToolStarted,
)
from desktop.model import OUTCOME_KEY
from desktop.store import StoredMessage
from desktop.tool_calls import CARD_KEY, RESULT_PREVIEW, CallCard, ToolUse

CardFor = Callable[[ToolUse], CallCard]
Turn = list[AgentEvent]


def replay(messages: list[StoredMessage], card_for: CardFor) -> list[Turn]:
    """The events of each turn (a prompt and everything that answered it), oldest first."""
    cards = _stored_cards(messages)
    turns: list[Turn] = []
    for message in messages:
        if not turns or (message.role == "user" and message.text.strip()):
            turns.append([])
        if message.role == "user":
            turns[-1].extend(_user_events(message))
        else:
            turns[-1].extend(_assistant_events(message, cards, card_for))
    return turns


def _stored_cards(messages: list[StoredMessage]) -> dict[str, dict[str, Any]]:
    return {
        str(block.get("tool_use_id")): block[CARD_KEY]
        for message in messages
        if message.role == "user"
        for block in message.content
        if block.get("type") == "tool_result" and isinstance(block.get(CARD_KEY), dict)
    }


def _user_events(message: StoredMessage) -> list[AgentEvent]:
    events: list[AgentEvent] = []
    for block in message.content:
        if block.get("type") == "tool_result":
            events.append(_finished(message.session_id, block))
    if message.text.strip():
        events.append(PromptAdded(session_id=message.session_id, text=message.text))
    return events


def _assistant_events(
    message: StoredMessage, cards: dict[str, dict[str, Any]], card_for: CardFor
) -> list[AgentEvent]:
    sid = message.session_id
    events: list[AgentEvent] = []
    for block in message.content:
        if block.get("type") == "text" and str(block.get("text", "")):
            events.append(TextDelta(session_id=sid, text=str(block["text"])))
        elif block.get("type") == "tool_use":
            use = ToolUse.of(block)
            stored = cards.get(use.id)
            card = CallCard.model_validate(stored) if stored else card_for(use)
            events.append(
                ToolStarted(
                    session_id=sid,
                    tool_use_id=use.id,
                    name=use.name,
                    label=card.label,
                    summary=card.summary,
                    input=use.arguments,
                )
            )
    events.append(
        MessageCommitted(
            session_id=sid, message_id=message.id, role="assistant", status=message.status
        )
    )
    return events


def _finished(session_id: int, block: dict[str, Any]) -> ToolFinished:
    text, images = _result_parts(block.get("content"))
    card = block.get(CARD_KEY)
    is_error = bool(block.get("is_error"))
    stored = CallCard.model_validate(card) if isinstance(card, dict) else None
    if stored is not None:
        outcome, text = stored.outcome, stored.result
    else:  # kept before cards: how it ended, if that was noted
        outcome = block.get(OUTCOME_KEY) or ("error" if is_error else "ok")
    return ToolFinished(
        session_id=session_id,
        tool_use_id=str(block.get("tool_use_id")),
        is_error=is_error,
        summary=text,
        outcome=outcome,
        images=images,
        notices=stored.notices if stored else [],
        offers=stored.offers if stored else [],
    )


def _result_parts(content: Any) -> tuple[str, list[str]]:
    """A stored tool_result's text and the files of its images."""
    if isinstance(content, str):
        return content[:RESULT_PREVIEW], []
    texts: list[str] = []
    images: list[str] = []
    for part in content or []:
        if isinstance(part, dict) and part.get("type") == "text":
            texts.append(str(part.get("text", "")))
        elif isinstance(part, dict) and "deskhand_image" in part:
            images.append(str(part["deskhand_image"]["path"]))
    return "\n".join(texts)[:RESULT_PREVIEW], images
