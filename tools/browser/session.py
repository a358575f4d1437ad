"""One chat session's browser: its context, its tabs, and what happened in them since the last report.

A `BrowserSession` owns the tabs a session opened (and the popups those tabs opened), gives
each a `tab_N` id that is never reused, keeps exactly one of them active, and collects the
state changes the toolset reports after every call: tabs opened by pages, downloads,
dismissed dialogs, refused navigations. Console and network logs are kept per tab for the
default-off `read_console` / `read_network` members.

Event handlers here are plain callbacks run by Playwright's dispatcher; anything that must
await runs as a task the session tracks and cancels on close.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import KW_ONLY, dataclass, field
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anthropic.tools.browser import (
    BetaBrowserState,
    BetaDialogDismissed,
    BetaNavigationRefused,
    TabMissingError,
)
from playwright.async_api import (
    BrowserContext,
    CDPSession,
    ConsoleMessage,
    Dialog,
    Download,
    Frame,
    Page,
    Request,
    Response,
)
from playwright.async_api import Error as PlaywrightError

from tools.browser import errors
from tools.browser.downloads import safe_filename, unique_path
from tools.browser.page.refs import RefCounter, RefTable
from tools.browser.tab import Tab

if TYPE_CHECKING:
    from anthropic.lib.tools._toolsets._results import StateChange

log = logging.getLogger(__name__)

__all__ = ["BrowserSession", "PendingRefusals"]

LINE_CAP = 500


def _cut(text: str, limit: int = LINE_CAP) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


ContextFactory = Callable[[], Awaitable[BrowserContext]]


class PendingRefusals:
    """Refused navigations of popups no session has announced yet (shared by a pool's sessions).

    The guard can refuse a popup's first request before the popup's page exists; the session
    that later receives that popup (showing Chromium's error page) reports and closes it.
    """

    def __init__(self) -> None:
        self.pages: set[Page] = set()
        self.unattributed = 0

    def note(self, page: Page | None) -> None:
        if page is None:
            self.unattributed += 1
        else:
            self.pages.add(page)

    def claim(self, page: Page) -> bool:
        if page in self.pages:
            self.pages.discard(page)
            return True
        if self.unattributed and page.url.startswith("chrome-error://"):
            self.unattributed -= 1
            return True
        return False


@dataclass(eq=False)
class BrowserSession:
    """The tabs and pending state changes of one chat session."""

    key: str
    _: KW_ONLY
    context_factory: ContextFactory
    page_factory: Callable[[BrowserContext], Awaitable[Page]]
    watch_page: Callable[[BrowserContext, Page], Awaitable[CDPSession | None]]
    downloads_dir: Callable[[], Path]
    logs_enabled: Callable[[], tuple[bool, bool]]
    refusals: PendingRefusals
    context: BrowserContext | None = field(default=None, init=False)
    tabs: dict[str, Tab] = field(default_factory=dict, init=False)
    active: str | None = field(default=None, init=False)
    ref_counter: RefCounter = field(default_factory=RefCounter, init=False)
    changes: list[StateChange] = field(default_factory=list, init=False)
    download_names: dict[str, str] = field(default_factory=dict, init=False)  # id -> file name
    closed: bool = field(default=False, init=False)
    _recent: list[str] = field(default_factory=list, init=False)  # tab ids, newest active last
    _tab_numbers: Iterator[int] = field(default_factory=lambda: count(1), init=False)
    _download_numbers: Iterator[int] = field(default_factory=lambda: count(1), init=False)
    _by_page: dict[Page, Tab] = field(default_factory=dict, init=False)
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set, init=False)
    _context_lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False)

    @property
    def launched(self) -> bool:
        return self.context is not None

    # --- tabs --------------------------------------------------------------------------------

    async def ensure_context(self) -> BrowserContext:
        async with self._context_lock:
            if self.closed:
                raise errors.refusal(errors.TAB_CLOSED)
            if self.context is None:
                self.context = await self.context_factory()
            return self.context

    async def tab(self, tab_id: str | None, *, create: bool = True) -> Tab:
        """The tab a call addresses: the named one, else the active one (opening a first tab if none)."""
        if tab_id:
            found = self.tabs.get(tab_id)
            if found is None or found.page.is_closed():
                raise TabMissingError()
            return found
        if self.active is not None and self.active in self.tabs:
            return self.tabs[self.active]
        if not create:
            raise errors.refusal(errors.NO_TAB)
        return await self.new_tab()

    async def new_tab(self) -> Tab:
        context = await self.ensure_context()
        page = await self.page_factory(context)
        tab = self._adopt(page, popup=False)
        self._activate(tab.tab_id)
        await self._watch(tab)
        return tab

    def switch(self, tab_id: str) -> Tab:
        tab = self.tabs.get(tab_id)
        if tab is None or tab.page.is_closed():
            raise TabMissingError()
        self._activate(tab_id)
        self._spawn(self._bring_to_front(tab.page))
        return tab

    async def close_tab(self, tab_id: str) -> None:
        tab = self.tabs.get(tab_id)
        if tab is None:
            raise TabMissingError()
        with contextlib.suppress(PlaywrightError):
            await tab.page.close(run_before_unload=False)
        self._forget(tab.page)

    def _activate(self, tab_id: str) -> None:
        self.active = tab_id
        if tab_id in self._recent:
            self._recent.remove(tab_id)
        self._recent.append(tab_id)

    @staticmethod
    async def _bring_to_front(page: Page) -> None:
        with contextlib.suppress(PlaywrightError):
            await page.bring_to_front()

    def _adopt(self, page: Page, *, popup: bool) -> Tab:
        """Give `page` a tab id and listen to it; called synchronously from the event that reveals it."""
        known = self._by_page.get(page)
        if known is not None:
            return known
        tab = Tab(f"tab_{next(self._tab_numbers)}", page, RefTable(self.ref_counter), popup=popup)
        self.tabs[tab.tab_id] = tab
        self._by_page[page] = tab
        page.on("close", lambda _page: self._forget(page))
        page.on("popup", lambda popup: self._on_popup(tab, popup))
        page.on("dialog", self._on_dialog)
        page.on("download", lambda download: self._on_download(tab, download))
        page.on("framenavigated", lambda frame: self._on_navigated(tab, frame))
        page.on("request", lambda request: self._on_request(tab, request))
        page.on("requestfailed", lambda request: self._on_request_failed(tab, request))
        page.on("response", lambda response: self._on_response(tab, response))
        page.on("console", lambda message: self._on_console(tab, message))
        page.on("pageerror", lambda error: self._on_page_error(tab, error))
        page.on("requestfinished", lambda request: self._on_request_finished(tab, request))
        return tab

    async def _watch(self, tab: Tab) -> None:
        if self.context is None:
            return
        tab.cdp = await self.watch_page(self.context, tab.page)
        if tab.cdp is None:
            return
        # Page.windowOpen comes the moment a page asks for a window, long before the popup
        # exists: it lets an action wait for the popup it caused instead of guessing a delay.
        tab.cdp.on("Page.windowOpen", lambda _event: self._window_requested(tab))
        # And Page.frameRequestedNavigation the moment it asks to navigate: an action waits for
        # the navigation it caused even when the browser starts its request late.
        tab.cdp.on("Page.frameRequestedNavigation", tab.navigation_asked)
        with contextlib.suppress(PlaywrightError, KeyError):
            await tab.cdp.send("Page.enable")
            tree = await tab.cdp.send("Page.getFrameTree")
            tab.main_frame_id = str(tree["frameTree"]["frame"]["id"])

    @staticmethod
    def _window_requested(tab: Tab) -> None:
        tab.popups_expected += 1

    def _forget(self, page: Page) -> None:
        tab = self._by_page.pop(page, None)
        if tab is None:
            return
        self.tabs.pop(tab.tab_id, None)
        if tab.tab_id in self._recent:
            self._recent.remove(tab.tab_id)
        if self.active == tab.tab_id:
            self.active = self._recent[-1] if self._recent else None

    # --- page events -------------------------------------------------------------------------

    def _on_popup(self, opener: Tab, page: Page) -> None:
        opener.popups_seen += 1
        opener.popup_arrived.set()
        if self.refusals.claim(page):
            # Its only navigation was refused, so it shows nothing but an error: close it unseen.
            self.changes.append(BetaNavigationRefused())
            self._spawn(self._close_page(page))
            return
        tab = self._adopt(page, popup=True)
        # Like a person's browser: the new window comes to the front and actions go to it.
        self._activate(tab.tab_id)
        self.changes.append({"type": "tab_opened", "tab_id": tab.tab_id})
        self._spawn(self._watch(tab))

    def owns(self, page: Page) -> bool:
        return page in self._by_page

    def refused(self, page: Page) -> None:
        """The guard refused a main-frame navigation of `page`, one of this session's tabs."""
        self.changes.append(BetaNavigationRefused())
        tab = self._by_page[page]
        tab.refused = True
        if tab.popup and page.url in ("", "about:blank"):
            self._spawn(self._close_page(page))

    async def _close_page(self, page: Page) -> None:
        # A popup whose only navigation was refused shows nothing: close it rather than keep a blank tab.
        with contextlib.suppress(PlaywrightError):
            await page.close(run_before_unload=False)
        self._forget(page)

    def _on_dialog(self, dialog: Dialog) -> None:
        self.changes.append(BetaDialogDismissed(kind=dialog.type, message=dialog.message))
        self._spawn(self._dismiss(dialog))

    @staticmethod
    async def _dismiss(dialog: Dialog) -> None:
        with contextlib.suppress(PlaywrightError):
            await dialog.dismiss()

    def _on_navigated(self, tab: Tab, frame: Frame) -> None:
        if frame.parent_frame is None:
            tab.refs.main_navigated()
            tab.nav_done.set()
        else:
            tab.refs.frame_navigated()

    def _on_request(self, tab: Tab, request: Request) -> None:
        if request.is_navigation_request() and request.frame is tab.page.main_frame:
            tab.nav_requests += 1
            tab.last_nav_request = request
            tab.nav_done.clear()

    def _on_request_failed(self, tab: Tab, request: Request) -> None:
        if request is tab.last_nav_request:
            tab.nav_done.set()
        if self.logs_enabled()[1]:
            code = errors.net_error_code(Exception(request.failure or ""))
            tab.network.append(_cut(f"{request.method} failed {code or ''} {request.url}"))

    def _on_response(self, tab: Tab, response: Response) -> None:
        # An empty answer (our own refusal, or a 204 from the site) leaves the tab where it was.
        if response.request is tab.last_nav_request and response.status in (204, 205):
            tab.nav_done.set()

    # The logs are only kept while Settings let the model read them.
    def _on_console(self, tab: Tab, message: ConsoleMessage) -> None:
        if self.logs_enabled()[0]:
            tab.console.append(_cut(f"[{message.type}] {message.text}"))

    def _on_page_error(self, tab: Tab, error: object) -> None:
        if self.logs_enabled()[0]:
            tab.console.append(_cut(f"[pageerror] {error}"))

    def _on_request_finished(self, tab: Tab, request: Request) -> None:
        if self.logs_enabled()[1]:
            tab.pending_logs.add(self._spawn(self._log_request(tab, request)))

    async def _log_request(self, tab: Tab, request: Request) -> None:
        try:
            response = await request.response()
        except PlaywrightError:
            return
        status = response.status if response is not None else "-"
        mime = (response.headers.get("content-type", "") if response is not None else "").split(
            ";"
        )[0]
        timing = request.timing
        elapsed = timing.get("responseEnd", -1)
        duration = f"{elapsed:.0f}ms" if elapsed >= 0 else "-"
        tab.network.append(
            _cut(f"{request.method} {status} {mime or '-'} {duration} {request.url}")
        )

    def _on_download(self, tab: Tab, download: Download) -> None:
        download_id = f"download_{next(self._download_numbers)}"
        self.download_names[download_id] = safe_filename(download.suggested_filename)
        self.changes.append(
            {"type": "download_started", "download_id": download_id, "url": download.url}
        )
        tab.nav_done.set()
        self._spawn(self._save_download(download_id, download))

    async def _save_download(self, download_id: str, download: Download) -> None:
        folder = self.downloads_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            target = unique_path(folder, safe_filename(download.suggested_filename))
            await download.save_as(target)
            size = target.stat().st_size
        except (PlaywrightError, OSError):
            log.info("A download could not be saved", exc_info=True)
            self.changes.append(
                {
                    "type": "download_failed",
                    "download_id": download_id,
                    "url": download.url,
                    "error": "The download failed or could not be saved.",
                }
            )
            return
        self.changes.append(
            {
                "type": "download_completed",
                "download_id": download_id,
                "url": download.url,
                "path": str(target),
                "size_bytes": size,
            }
        )

    # --- the report ----------------------------------------------------------------------------

    async def state(self, *, drain: bool = True) -> BetaBrowserState:
        """Every open tab (one active) and the changes since the last report, drained unless
        `drain` is false (the report of a call that will run again: its run reports them)."""
        if self.context is None:
            changes, self.changes = self._take_changes(drain)
            return BetaBrowserState(tabs=[], state_changes=changes)
        live = [tab for tab in self.tabs.values() if not tab.page.is_closed()]
        await asyncio.gather(*(tab.refresh_title() for tab in live if not tab.title_fresh))
        if live and (self.active is None or self.active not in {t.tab_id for t in live}):
            self._activate(live[-1].tab_id)
        changes, self.changes = self._take_changes(drain)
        tabs = [tab.entry(active=tab.tab_id == self.active) for tab in live]
        for tab in live:
            tab.refused = False
            tab.title_fresh = False
        return BetaBrowserState(tabs=tabs, state_changes=changes)

    def titles_unread(self) -> None:
        """Every tab's title is read again for the next report (none was read alongside it)."""
        for tab in self.tabs.values():
            tab.title_fresh = False

    def _take_changes(self, drain: bool) -> tuple[list[StateChange], list[StateChange]]:
        """(the changes to report, the changes kept for the next report)."""
        return (self.changes, []) if drain else (list(self.changes), self.changes)

    # --- lifetime ------------------------------------------------------------------------------

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def drain(self, limit: float = 5.0) -> None:
        """Wait up to `limit` seconds for pending downloads and other background work."""
        deadline = time.monotonic() + limit
        while self._tasks and time.monotonic() < deadline:
            await asyncio.wait(set(self._tasks), timeout=max(0.0, deadline - time.monotonic()))

    def reset(self) -> None:
        """The browser went away underneath: forget its tabs; the next call starts a new context."""
        self.tabs.clear()
        self._by_page.clear()
        self._recent.clear()
        self.active = None
        self.context = None

    async def close(self, *, close_context: bool) -> None:
        self.closed = True
        for task in list(self._tasks):
            task.cancel()
        for tab in list(self.tabs.values()):
            with contextlib.suppress(PlaywrightError):
                await tab.page.close(run_before_unload=False)
        self.tabs.clear()
        self._by_page.clear()
        self.active = None
        if close_context and self.context is not None:
            with contextlib.suppress(PlaywrightError):
                await self.context.close()
        self.context = None
