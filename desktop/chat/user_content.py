"""What a person's stored message holds: typed text, attachments, or a request to continue.

One place reads and writes these content blocks, so the store (titles, search), the
request builder, the transcript and the export agree on what the person wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop.chat.attachments import Attachment, attachment_in, block
from desktop.system.message_text import ATTACHMENT_KEY, CONTINUE_KEY, is_typed

# Sent for the person when they press Continue; the thread shows a divider, not this text.
CONTINUE_TEXT = (
    "Please continue from exactly where your previous reply stopped, "
    "without repeating what you already wrote."
)


def prompt_content(text: str, attachments: Sequence[Attachment] = ()) -> list[dict[str, Any]]:
    """A message the person sends: attachments first (as the API advises), then the text."""
    content = [block(attachment) for attachment in attachments]
    if text.strip():
        content.append({"type": "text", "text": text})
    return content


def continue_content() -> list[dict[str, Any]]:
    return [{"type": "text", "text": CONTINUE_TEXT, CONTINUE_KEY: True}]


def is_continue(content: list[dict[str, Any]]) -> bool:
    return any(item.get(CONTINUE_KEY) for item in content)


def attachments_of(content: list[dict[str, Any]]) -> list[Attachment]:
    return [found for item in content if (found := attachment_in(item)) is not None]


def is_prompt(content: list[dict[str, Any]]) -> bool:
    """A message the person sent (text or attachments), not tool results or a Continue."""
    return not is_continue(content) and any(
        (is_typed(item) and str(item.get("text", "")).strip()) or ATTACHMENT_KEY in item
        for item in content
    )


def with_text(content: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """`content` with its typed text replaced (an edited message keeps its attachments)."""
    kept = [item for item in content if not is_typed(item)]
    if text.strip():
        kept.append({"type": "text", "text": text})
    return kept
