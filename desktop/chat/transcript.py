"""A stored chat replayed as the events its live turns emitted, in the order they emitted them,
so the thread renders it through the same code as live output.

Live, a reply's text streams first, then the reply is committed, then each of its tool calls
starts and finishes in turn; a failed turn ends on its error card, a stopped one on
"Stopped" (both kept in the store's `turn_ends`, after the message that was newest then).
Replay emits the same. What only a running turn shows (the thinking line, progress lines)
leaves nothing to replay. Each tool card comes from what was stored beside its
`tool_result` (label, where the call comes from, summary, outcome); calls stored before cards
were kept are described again by their source, the same way a live call is, and cards kept
before they said where a call comes from get it here, so the window never reads a label.
A sent message is shown live through `prompt_event` too, so its attachments look the same
live and reopened. Versions that Edit or Regenerate replaced come back folded above the
message that replaced them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from desktop.calls.contract import CARD_KEY, OUTCOME_KEY, RESULT_PREVIEW, CallCard, ToolUse
from desktop.chat import user_content, versions
from desktop.chat.events import (
    AgentEvent,
    EarlierVersion,
    EarlierVersions,
    MessageCommitted,
    PromptAdded,
    ReplyContinued,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    stored_turn_end,
)
from desktop.model_stream import errors
from desktop.system.store import StoredMessage, StoredTurnEnd

CardFor = Callable[[ToolUse], CallCard]
Turn = list[AgentEvent]


def notice_for(stop_reason: str, max_tokens: int | None = None) -> str | None:
    """What the thread says when a turn ended other than normally (live and reopened)."""
    if stop_reason == "max_tokens":
        limit = f"the limit of {max_tokens} tokens" if max_tokens else "its length limit"
        return (
            f"The reply reached {limit} and was cut off. "
            "Press Continue, or raise Max tokens in Settings → Model."
        )
    if stop_reason == "refusal":
        return "Claude declined to continue with this request. Rephrase it or start a new chat."
    if stop_reason == "model_context_window_exceeded":
        return errors.context_too_long().detail
    if stop_reason == "pause_turn":
        return "Claude paused a long-running step. Send “continue” to let it go on."
    return None


def replay(
    messages: list[StoredMessage], card_for: CardFor, ends: Sequence[StoredTurnEnd] = ()
) -> list[Turn]:
    """The events of each turn (a prompt and everything that answered it), oldest first.

    `messages` may include replaced ones (`Store.messages(..., replaced=True)`): they
    show as the earlier versions of the message that replaced them. `ends` say how turns
    ended (`Store.turn_ends`); those after a replaced message went with it.
    """
    current = [m for m in messages if m.superseded_by is None]
    replaced = versions.replaced_groups(messages)
    cards = _stored_cards(current)
    ended: dict[int, list[AgentEvent]] = {}
    for end in ends:
        event = stored_turn_end(end.event_json)
        if end.after_message is not None and event is not None:
            ended.setdefault(end.after_message, []).append(event)
    turns: list[Turn] = []
    calls: list[ToolUse] = []  # the newest reply's calls: live, they ran after it was committed
    for message in current:
        results = _results(message) if message.role == "user" else {}
        if calls and turns:
            turns[-1].extend(_calls(message.session_id, calls, results, cards, card_for))
        calls = []
        if not turns or (message.role == "user" and user_content.is_prompt(message.content)):
            turns.append([])
        if message.role == "user":
            if message.id in replaced:
                turns[-1].append(
                    EarlierVersions(
                        session_id=message.session_id,
                        versions=_versions(replaced, message.id),
                        current_prompt=message.text,
                        current_id=message.id,
                    )
                )
            turns[-1].extend(_user_events(message, results))
        else:
            turns[-1].extend(_assistant_events(message))
            calls = [ToolUse.of(b) for b in message.content if b.get("type") == "tool_use"]
        turns[-1].extend(ended.get(message.id, []))
    if calls and turns:  # the app quit while they ran: their cards as they were left
        turns[-1].extend(_calls(current[-1].session_id, calls, {}, cards, card_for))
    last = current[-1] if current else None
    if last is not None and last.role == "assistant" and last.stop_reason == "pause_turn":
        # Live, a paused step went on by itself; only a pause that ended the turn was said.
        turns[-1].append(_notice(last, "pause_turn"))
    return turns


def _notice(message: StoredMessage, stop_reason: str) -> TurnFinished:
    return TurnFinished(
        session_id=message.session_id, stop_reason=stop_reason, notice=notice_for(stop_reason)
    )


def prompt_event(message: StoredMessage) -> PromptAdded:
    """The person's message as the thread shows it: text and attachments."""
    return PromptAdded(
        session_id=message.session_id,
        text=message.text,
        message_id=message.id,
        attachments=user_content.attachments_of(message.content),
    )


def _versions(replaced: dict[int, versions.Group], message_id: int) -> list[EarlierVersion]:
    """What `message_id` replaced, the most recently current first."""
    found: list[EarlierVersion] = []
    for group in versions.chain(replaced, message_id):
        prompt = group[0]
        found.append(
            EarlierVersion(
                message_id=prompt.id,
                prompt=prompt.text,
                attachments=user_content.attachments_of(prompt.content),
                reply="\n\n".join(
                    m.text.strip() for m in group if m.role == "assistant" and m.text.strip()
                ),
                steps=sum(
                    1
                    for m in group
                    if m.role == "assistant"
                    for block in m.content
                    if block.get("type") == "tool_use"
                ),
            )
        )
    return found


def _stored_cards(messages: list[StoredMessage]) -> dict[str, dict[str, Any]]:
    return {
        str(block.get("tool_use_id")): block[CARD_KEY]
        for message in messages
        if message.role == "user"
        for block in message.content
        if block.get("type") == "tool_result" and isinstance(block.get(CARD_KEY), dict)
    }


def _results(message: StoredMessage) -> dict[str, dict[str, Any]]:
    return {
        str(block.get("tool_use_id")): block
        for block in message.content
        if block.get("type") == "tool_result"
    }


def _calls(
    sid: int,
    calls: list[ToolUse],
    results: dict[str, dict[str, Any]],
    cards: dict[str, dict[str, Any]],
    card_for: CardFor,
) -> list[AgentEvent]:
    """Each call of a reply started, then finished by its result (if one was kept), in turn."""
    events: list[AgentEvent] = []
    for use in calls:
        events.append(_start(sid, use, cards, card_for))
        if (result := results.pop(use.id, None)) is not None:
            events.append(_finished(sid, result))
    return events


def _user_events(message: StoredMessage, unmatched: dict[str, dict[str, Any]]) -> list[AgentEvent]:
    """Results whose call is not in the reply before (never shown as started), then the
    person's own message as it was sent."""
    events: list[AgentEvent] = [
        _finished(message.session_id, block) for block in unmatched.values()
    ]
    if user_content.is_continue(message.content):
        events.append(ReplyContinued(session_id=message.session_id))
    elif user_content.is_prompt(message.content):
        events.append(prompt_event(message))
    return events


def _start(
    sid: int, use: ToolUse, cards: dict[str, dict[str, Any]], card_for: CardFor
) -> ToolStarted:
    stored = cards.get(use.id)
    card = CallCard.model_validate(stored) if stored else card_for(use)
    if stored and not card.source_title:
        card = _with_source(card, use, card_for(use))
    return ToolStarted.of(sid, use, card)


def _with_source(card: CallCard, use: ToolUse, now: CallCard) -> CallCard:
    """A card stored before cards said where their call comes from, as it looked then: the
    source that answers the call now (or the stored tool's own name when none does, as a
    Mac's tools on Linux), and the title its label began with."""
    title = card.label.partition(":")[0] if card.label else now.source_title
    source = now.source or use.toolset_name or use.name
    return card.model_copy(update={"source": source, "source_title": title})


def _assistant_events(message: StoredMessage) -> list[AgentEvent]:
    """Live, the reply's text streams whole (its calls start only once it is committed)."""
    sid = message.session_id
    events: list[AgentEvent] = [
        TextDelta(session_id=sid, text=str(block["text"]))
        for block in message.content
        if block.get("type") == "text" and str(block.get("text", ""))
    ]
    events.append(
        MessageCommitted(
            session_id=sid, message_id=message.id, role="assistant", status=message.status
        )
    )
    if message.stop_reason not in (None, "pause_turn") and notice_for(message.stop_reason):
        events.append(_notice(message, message.stop_reason))
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
        effect=stored.effect if stored else None,
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
