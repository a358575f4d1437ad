"""Take over / Hand back for the browser Claude uses: the person's own turn at the controls.

The person presses Take over (on the browser's card in the thread): the browser window comes to
the front, and every browser call of that chat waits before it starts, so no sheet asks and
nothing acts while they sign in or look around. Hand back lets Claude go on; the call that
waited is not done (it was planned on a page that may have changed), and the model is told,
in plain words, for how long the person had the browser and which page it is on now: its
title and address, never what was typed or clicked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

__all__ = ["BROWSER", "BROWSER_TITLE", "BrowserHand", "handed_back_note"]

BROWSER = "browser"  # the browser source's name: its calls' toolset, and their cards' source
BROWSER_TITLE = "Browser"  # the cards' label prefix of browser calls ("Browser: navigate")

log = logging.getLogger(__name__)

PageNow = Callable[[int], Awaitable[tuple[str, str] | None]]  # session -> (title, url)
Front = Callable[[int], Awaitable[None]]  # session -> bring its browser window to the front


def handed_back_note(seconds: float, page: tuple[str, str] | None) -> str:
    whole = max(1, round(seconds))
    unit = "second" if whole == 1 else "seconds"
    where = "No page is open now."
    if page is not None:
        title, url = page
        where = f"The page is now “{title}” at {url}." if title else f"The page is now {url}."
    return (
        f"The person took over the browser for {whole} {unit} and handed it back. {where} "
        "Look at the page again before acting; the action planned before was not done."
    )


class BrowserHand:
    """Per chat: whether the person has the browser, and the note Claude reads after."""

    def __init__(self) -> None:
        self.page_now: PageNow | None = None  # set once the browser is built
        self.front: Front | None = None
        self._taken: dict[int, float] = {}
        self._notes: dict[int, str] = {}
        self._changed = asyncio.Event()
        self.listeners: list[Callable[[int, bool], None]] = []  # (chat, the person has it)

    def has_it(self, session_id: int) -> bool:
        return session_id in self._taken

    async def toggle(self, session_id: int) -> None:
        if self.has_it(session_id):
            await self.hand_back(session_id)
        else:
            await self.take_over(session_id)

    async def take_over(self, session_id: int) -> None:
        if session_id in self._taken:
            return
        self._taken[session_id] = time.monotonic()
        self._notes.pop(session_id, None)
        self._notify(session_id, True)
        if self.front is not None:
            with contextlib.suppress(Exception):  # a closed browser: nothing to bring forward
                await self.front(session_id)

    async def hand_back(self, session_id: int) -> None:
        since = self._taken.get(session_id)
        if since is None:
            return
        page = None
        if self.page_now is not None:
            try:
                page = await self.page_now(session_id)
            except Exception:
                log.info("The page could not be read after the person handed back", exc_info=True)
        self._notes[session_id] = handed_back_note(time.monotonic() - since, page)
        del self._taken[session_id]
        self._changed.set()
        self._notify(session_id, False)

    async def before_call(self, session_id: int) -> str | None:
        """Wait while the person has the browser; then the note, once, if they had it."""
        while session_id in self._taken:
            self._changed.clear()
            await self._changed.wait()
        return self._notes.pop(session_id, None)

    def forget(self, session_id: int) -> None:
        self._taken.pop(session_id, None)
        self._notes.pop(session_id, None)
        self._changed.set()

    def _notify(self, session_id: int, taken: bool) -> None:
        for listener in list(self.listeners):
            try:
                listener(session_id, taken)
            except Exception:
                log.exception("A browser hand listener failed")
