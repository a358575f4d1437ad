"""A finished message, committed: written to the store at once, then announced.

A turn's messages (Claude's reply, the part of it kept when it stopped or failed, the results
of its tool calls) go through `commit`, so none is announced as `MessageCommitted` before it is
safe in the store, and a crash loses at most the reply being streamed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from desktop.chat.events import AgentEvent, MessageCommitted
from desktop.system.store import MessageStatus, Store


def commit(
    store: Store,
    emit: Callable[[AgentEvent], None],
    session_id: int,
    role: Literal["user", "assistant"],
    content: list[dict[str, Any]],
    *,
    status: MessageStatus = "complete",
    **details: Any,
) -> int:
    """Store the message (`details`: the model, usage and stop reason of a reply), tell `emit`
    it is stored, and return its id."""
    message_id = store.add_message(session_id, role, content, status=status, **details)
    emit(MessageCommitted(session_id=session_id, message_id=message_id, role=role, status=status))
    return message_id
