"""One open tab: its page, its element references, its logs, and how to wait for what an action started."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Any

from anthropic.types.beta import BetaBrowserStateTabEntryParam
from playwright.async_api import CDPSession, Page, Request
from playwright.async_api import Error as PlaywrightError

from tools.browser.effect.target import Effect, Inspector
from tools.browser.page.refs import RefTable

__all__ = ["Tab"]

LOG_LINES = 1000
TITLE_TIMEOUT = 1.0


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

    async def settle(self, requests_before: int) -> None:
        """After an action: wait for the navigation or the popup it started, so the report shows it."""
        await asyncio.sleep(0.02)  # a click's navigation or popup starts a moment after the click
        deadline = asyncio.get_running_loop().time() + 5
        while self.popups_seen < self.popups_expected:
            self.popup_arrived.clear()
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                self.popups_seen = self.popups_expected  # gave up on it: do not wait for it again
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.popup_arrived.wait(), remaining)
        if self.nav_requests == requests_before:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.nav_done.wait(), 10)
        with contextlib.suppress(PlaywrightError):
            await self.page.wait_for_load_state("domcontentloaded", timeout=10_000)
