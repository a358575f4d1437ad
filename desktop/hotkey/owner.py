"""The running app's hold on its shortcut: take it, follow Settings → General, say how it fares.

`QuickEntryShortcut` knows nothing of windows: it calls `on_press` (on the event loop) when the
shortcut is pressed, and keeps `problem` (for Settings → General and the window's notice) when
the shortcut cannot work: another app holds it, a Wayland session, no permission.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from desktop.hotkey import GlobalHotKey, HotKeyError, hotkey_for
from desktop.system.settings.shortcut import Shortcut

__all__ = ["QuickEntryShortcut"]

log = logging.getLogger(__name__)

Factory = Callable[[Shortcut, Callable[[], None]], GlobalHotKey]


class QuickEntryShortcut:
    """The shortcut this app holds, if it may (it owns the command socket), as set."""

    def __init__(self, factory: Factory = hotkey_for) -> None:
        self._factory = factory
        self.on_press: Callable[[], None] | None = None
        self.problem = ""  # why the shortcut does not work, for a person; "" while it does
        self.held: Shortcut | None = None
        self._hotkey: GlobalHotKey | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.listeners: list[Callable[[str], None]] = []  # told `problem` when it changes

    async def hold(self, stored: str) -> None:
        """Hold the shortcut `stored` names ("" lets it go); a problem is kept, not raised."""
        self._loop = asyncio.get_running_loop()
        self.release()
        problem = ""
        try:
            shortcut = Shortcut.parse(stored)
        except ValueError:
            shortcut, problem = None, f"“{stored}” is not a shortcut Deskhand can use."
        if shortcut is not None:
            try:
                hotkey = self._factory(shortcut, self._pressed)
                await hotkey.start()
            except HotKeyError as exc:
                problem = str(exc)
                log.info("quick entry shortcut: %s", problem)
            else:
                self._hotkey, self.held = hotkey, shortcut
        self._say(problem)

    def release(self) -> None:
        hotkey, self._hotkey, self.held = self._hotkey, None, None
        if hotkey is not None:
            hotkey.stop()

    def _pressed(self) -> None:
        """From the hot key's thread: on to the loop."""
        if self._loop is not None and self.on_press is not None:
            self._loop.call_soon_threadsafe(self.on_press)

    def _say(self, problem: str) -> None:
        self.problem = problem
        for listener in list(self.listeners):
            listener(problem)
