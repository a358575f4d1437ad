"""The marks a stored message's content blocks carry, and the person's own words in them.

The store titles and searches chats by what the person typed; the chat builds those blocks
(`desktop.chat.user_content`, `desktop.chat.attachments`). The marks are defined here, once,
so both read the same format without the store knowing how a chat is made.
"""

from __future__ import annotations

from typing import Any

ATTACHMENT_KEY = "deskhand_attachment"  # an attached file's display details (never sent)
CONTINUE_KEY = "deskhand_continue"  # words Deskhand sent for the person (Continue)


def is_typed(item: dict[str, Any]) -> bool:
    """A text block the person typed (not a file's text, not a Continue request)."""
    return item.get("type") == "text" and ATTACHMENT_KEY not in item and CONTINUE_KEY not in item


def typed_text(content: list[dict[str, Any]]) -> str:
    return "".join(str(item.get("text", "")) for item in content if is_typed(item))


def attached_names(content: list[dict[str, Any]]) -> list[str]:
    """The names of the files attached in these blocks, in order."""
    return [
        str(shown.get("name", ""))
        for item in content
        if isinstance(shown := item.get(ATTACHMENT_KEY), dict)
    ]
