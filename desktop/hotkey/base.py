"""What a system-wide hot key offers, and its one error."""

from __future__ import annotations

from typing import Protocol


class HotKeyError(Exception):
    """The shortcut cannot work here; the message says why and what to do, for the person."""


class GlobalHotKey(Protocol):
    """Calls its `on_press` (from a thread of its own) each time the shortcut is pressed."""

    async def start(self) -> None:
        """Take the shortcut; raises `HotKeyError` if it cannot (another app holds it)."""
        ...

    def stop(self) -> None:
        """Let the shortcut go."""
        ...
