"""One open tab: its page, its element references, its logs, and how to wait for what an action started.

What an action started is found out by events, not by guessing a delay: the page is asked for
one round trip through its main thread (which runs after the tasks the action queued, such as a
form's submission), and by then the page has said, on the same CDP session, whether it asked
for a navigation (`Page.frameRequestedNavigation`) or a window (`Page.windowOpen`). A busy
machine makes that round trip slower, never wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from dataclasses import dataclass
from typing import Any

from anthropic.types.beta import BetaBrowserStateTabEntryParam
from playwright.async_api import CDPSession, Page, Request
from playwright.async_api import Error as PlaywrightError

from tools.browser.effect.target import Effect, Inspector
from tools.browser.page.refs import RefTable

__all__ = ["NavMark", "Tab"]

LOG_LINES = 1000
TITLE_TIMEOUT = 1.0
# On the page's own timer, saved before the effect watcher (outcome/settle.py) wraps the page's
# `setTimeout`: waiting here must not count as work the action set going (the settle would then
# wait out its quiet time after every action).
ROUND_TRIP = (
    "new Promise(resolve => {"
    " const watcher = window[Symbol.for('deskhand.settle')];"
    " (watcher ? watcher.later : setTimeout)(resolve, 0); })"
)
ROUND_TRIP_LIMIT = 10.0  # a page whose main thread is held longer than this is not waited for
REQUEST_LIMIT = 10.0  # a navigation asked for and not started by then was cancelled
POPUP_LIMIT = 10.0  # a window asked for and not there by then never comes


@dataclass(frozen=True)
class NavMark:
    """How many main-frame navigations the tab had asked for and started, before an action."""

    asked: int
    requests: int


class Tab:
    """One open page and what the session knows about it."""

    def __init__(self, tab_id: str, page: Page, refs: RefTable, *, popup: bool) -> None:
        self.tab_id = tab_id
        self.page = page
        self.refs = refs
        self.popup = popup
        self.cdp: CDPSession | None = None
        self.title = ""
        self.title_fresh = False  # read during the current call, alongside the page work
        self.console: deque[str] = deque(maxlen=LOG_LINES)
        self.network: deque[str] = deque(maxlen=LOG_LINES)
        self.nav_requests = 0
        self.nav_asked = 0  # main-frame navigations the page asked for (frameRequestedNavigation)
        self.main_frame_id: str | None = None  # its CDP frame id, once `cdp` is attached
        self.nav_done = asyncio.Event()
        self.nav_done.set()
        self.last_nav_request: Request | None = None
        self.refused = False  # a navigation of this tab was refused during the current call
        # Windows this page asked to open (CDP Page.windowOpen) and the popups that arrived since.
        self.popups_expected = 0
        self.popups_seen = 0
        self.popup_arrived = asyncio.Event()
        self.pending_logs: set[asyncio.Task[Any]] = set()  # network lines still being written
        self.inspector = Inspector(page)  # what actions here will affect (CDP, on first use)
        self.pointer_down: Effect | None = None  # where the left button went down, until it is up

    async def logged(self, limit: float = 2.0) -> None:
        """Wait (up to `limit` seconds) for the network lines of finished requests to be written."""
        pending = {task for task in self.pending_logs if not task.done()}
        self.pending_logs = pending
        if pending:
            await asyncio.wait(pending, timeout=limit)

    def entry(self, *, active: bool) -> BetaBrowserStateTabEntryParam:
        return {"tab_id": self.tab_id, "title": self.title, "url": self.page.url, "active": active}

    async def refresh_title(self) -> bool:
        """Read the title again; False if it could not be read in time (the last one stays)."""
        # title() waits for a document during a navigation; the last known title is better than a stall
        with contextlib.suppress(PlaywrightError, TimeoutError):
            self.title = await asyncio.wait_for(self.page.title(), TITLE_TIMEOUT)
            return True
        return False

    def nav_mark(self) -> NavMark:
        """Where the tab's navigations stand now (to `settle` after an action)."""
        return NavMark(asked=self.nav_asked, requests=self.nav_requests)

    def navigation_asked(self, event: dict[str, Any]) -> None:
        """CDP `Page.frameRequestedNavigation`: the page asked to navigate (a link followed, a form
        submitted, a script setting `location`); counted for the main frame, in this tab."""
        in_place = event.get("disposition", "currentTab") == "currentTab"
        if in_place and event.get("frameId") == self.main_frame_id:
            self.nav_asked += 1

    async def caught_up(self) -> None:
        """Return once the page's main thread ran the tasks queued so far (or navigated away)."""
        if self.cdp is None or self.page.is_closed():
            await asyncio.sleep(0.02)  # no session to ask: the old guess
            return
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(
                self.cdp.send("Runtime.evaluate", {"expression": ROUND_TRIP, "awaitPromise": True}),
                ROUND_TRIP_LIMIT,
            )

    async def settle(self, before: NavMark) -> None:
        """After an action: wait for the navigation or the popup it started, so the report shows it."""
        await self.caught_up()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + POPUP_LIMIT
        while self.popups_seen < self.popups_expected:
            self.popup_arrived.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                self.popups_seen = self.popups_expected  # gave up on it: do not wait for it again
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.popup_arrived.wait(), remaining)
        if self.nav_requests == before.requests and self.nav_asked == before.asked:
            return
        # Asked for, maybe not started yet: its request comes from the browser a moment later.
        deadline = loop.time() + REQUEST_LIMIT
        while self.nav_requests == before.requests and loop.time() < deadline:
            if self.page.is_closed():
                return
            await asyncio.sleep(0.02)
        if self.nav_requests == before.requests:
            return  # cancelled before it started (a handler, a download, an empty answer)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.nav_done.wait(), 10)
        with contextlib.suppress(PlaywrightError):
            await self.page.wait_for_load_state("domcontentloaded", timeout=10_000)
