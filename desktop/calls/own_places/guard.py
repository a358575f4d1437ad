"""The guard of Deskhand's own places, on every call `run_gated` runs.

Before any work: a call whose input names one of Deskhand's own places (its key, chat history,
settings, connectors, folders; see `own_paths.py`) is refused in every mode, without a sheet.
The model reads one fixed phrase; the card says what was tried ("Claude tried to read
Deskhand's own key file. Refused."); the audit keeps the refusal and why.

After the work, the second line: an API key in a result, however the tool came to read it, is
replaced before the result is stored or sent anywhere, and the card says so.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop.calls.own_places.resolve import Touch, touches
from desktop.calls.permissions import Decision, ToolCall
from desktop.system.keystore import known_keys, known_tokens

OWN_PLACE = (
    "Refused: this names Deskhand's own files (its API key, chat history, settings or "
    "connectors), which no tool may read, list or change, in any mode. Do not try again in "
    "another way; tell the person what you needed."
)
KEY_REMOVED = "[Deskhand's API key, removed]"
TOKEN_REMOVED = "[a connector's sign-in token, removed]"
KEY_NOTICE = (
    "The result held one of Deskhand's secrets (its API key or a connector's sign-in token); "
    "it was replaced before it was kept or sent."
)
OWN_REASON = "Deskhand's own places"

_READS = re.compile(r"read|get|view|open|cat|show|fetch|download|info|stat", re.IGNORECASE)
_LISTS = re.compile(r"list|tree|search|find|glob|ls\b", re.IGNORECASE)
_CHANGES = re.compile(
    r"write|edit|create|move|rename|delete|remove|set|save|append|put|upload|copy|trash|mkdir",
    re.IGNORECASE,
)


def verb(action: str) -> str:
    """What the call tried, in the card's words: read, list, change or use."""
    if _CHANGES.search(action):
        return "change"
    if _LISTS.search(action):
        return "list"
    if _READS.search(action):
        return "read"
    return "use"


def notice(touch: Touch, action: str) -> str:
    return f"Claude tried to {verb(action)} Deskhand's own {touch.place}. Refused."


def default_bases() -> list[Path]:
    """Where a relative path lands for a tool that does not say: the working folder, home."""
    return [Path(os.getcwd()), Path.home()]


async def own_place_refusal(
    use: Any, call: ToolCall, source: object
) -> tuple[str, str, Decision] | None:
    """(what the model reads, the card's notice, the audited decision) for a call that names
    an own place; None for any other call.

    A source whose tools read relative paths from folders of their own (an MCP server's allowed
    directories) says which through an optional `path_bases(use) -> list[Path]`."""
    more: Callable[[Any], list[Path]] | None = getattr(source, "path_bases", None)

    def look() -> list[Touch]:
        bases = [*(more(use) if more is not None else []), *default_bases()]
        return touches([use.input, call.input], bases, action=f"{call.tool} {call.action}")

    # On the loop's own thread: a few lstat calls per path (microseconds), and `path_bases` reads
    # the source's live state, which belongs to this thread. Run from a worker thread, the look
    # raced the window's objects and crashed the process.
    found = look()
    if not found:
        return None
    first = found[0]
    why = f"{OWN_REASON}: the {first.place} ({first.path[:200]})"
    decision = Decision(verdict="deny", by="rule", reason=why)
    return OWN_PLACE, notice(first, call.action), decision


def _without_keys(value: Any, keys: list[tuple[str, str]]) -> tuple[Any, bool]:
    if isinstance(value, str):
        clean = value
        for key, removed in keys:
            clean = clean.replace(key, removed)
        return clean, clean != value
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        changed = False
        for name, item in value.items():
            out[name], hit = _without_keys(item, keys)
            changed = changed or hit
        return out, changed
    if isinstance(value, list):
        items = [_without_keys(item, keys) for item in value]
        return [item for item, _ in items], any(hit for _, hit in items)
    return value, False


def without_keys(content: list[Any]) -> tuple[list[Any], bool]:
    """`content` with every API key (and connector token) this process knows replaced; and
    whether one was there."""
    secrets = [(key, KEY_REMOVED) for key in known_keys()]
    secrets += [(token, TOKEN_REMOVED) for token in known_tokens()]
    keys = sorted(secrets, key=lambda pair: len(pair[0]), reverse=True)
    if not keys:
        return content, False
    clean: list[Any] = []
    found = False
    for item in content:
        if isinstance(item, dict):
            item, hit = _without_keys(item, keys)
            found = found or hit
        clean.append(item)
    return clean, found
