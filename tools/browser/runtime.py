"""The browser process, its network choke point, and one context (or set of tabs) per chat.

`BrowserRuntime` launches the browser lazily on the first call that needs it, behind the
egress proxy (`network/proxy.py`): the profile's own traffic goes to the proxy's shared listener, and
each chat's `BrowserContext` (a fresh profile) gets a listener of its own, so every request
is checked under that chat's rules and every refusal is counted for that chat. With
`profile_dir`, all chats share one persistent Deskhand profile, its context and listener.

The browser always starts from a profile directory Deskhand prepares (a temporary one, or
`profile_dir`), because the "never preload pages" preference lives there (see `launch`).
Such a launch opens a startup window, closed once a chat has a page of its own; on Linux and
Windows a windowed Chromium then quits when the person closes its last window, and the next
call starts it afresh (chats without open tabs lose their cookies then).

What the app reads and grants:

    runtime.take_refused(session_id)    # [RefusedHost(host, reason, count), ...], then cleared
    runtime.allow_local("192.168.1.20", session=session_id)   # the person's choice, this chat
    runtime.allow_local("nas.local")                           # every chat, until quit

`BrowserPool` (in `pool`) adds the toolset per chat on top of this.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from tools.browser import errors
from tools.browser.config import BrowserConfig
from tools.browser.launch import launch_args, seed_profile
from tools.browser.locate import find_browser, install_hint
from tools.browser.network.check import EgressChecker, Resolver
from tools.browser.network.grants import SHARED, LocalGrants
from tools.browser.network.guard import RequestGuard
from tools.browser.network.proxy import EgressProxy
from tools.browser.network.refused import RefusedHost, RefusedRequests
from tools.browser.network.url_policy import UrlPolicy
from tools.browser.session import BrowserSession, PendingRefusals

log = logging.getLogger(__name__)

__all__ = ["BrowserRuntime"]

BYPASS = "<-loopback>"  # Chromium bypasses the proxy for loopback unless told not to


class BrowserRuntime:
    """Owns Playwright, the browser process, the egress proxy and every session's context."""

    def __init__(
        self, config: BrowserConfig | None = None, *, resolver: Resolver | None = None
    ) -> None:
        """`resolver` replaces the system's name lookup for the network checker (tests)."""
        self.config = config or BrowserConfig()
        self.grants = LocalGrants()
        self.refused = RefusedRequests()
        self.checker = EgressChecker(self._policy_for, resolver=resolver)
        self.proxy = EgressProxy(self.checker, self.refused.note)
        self.guard = RequestGuard(self.checker, self.refused, self._refused)
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None  # fresh profiles: the process that makes them
        self._root: BrowserContext | None = None  # the context the browser was launched with
        self._shared: BrowserContext | None = None  # the persistent profile's one context
        self._temp_profile: Path | None = None
        self._spare_pages: list[Page] = []  # pages a persistent profile opens by itself
        self._startup_pages: list[Page] = []  # fresh profiles: the window launching opened
        self._sessions: dict[str, BrowserSession] = {}
        self._refusals = PendingRefusals()
        self._launch_lock = asyncio.Lock()
        self._closed = False

    # --- policy, grants and refusals ----------------------------------------------------------

    def _policy_for(self, key: str) -> UrlPolicy:
        return self.grants.policy_for(self.config.url_policy, key)

    def _key(self, session_key: str) -> str:
        """Whose rules a session's traffic runs under: its own, or the shared profile's."""
        return SHARED if self.config.profile_dir is not None else session_key

    def allow_local(self, host: str, *, session: object | None = None) -> str:
        """Let the browser reach `host` (refused before) for one chat, or every chat if None.

        Only the person may call this (a button on the tool card), never the model. `host` is
        a name, an address, `host:port` or a URL; the canonical host is returned, and
        `ValueError` raised for something that is no host. A block-list entry still wins.
        Grants last until quit; "always" is the Settings allow list.
        """
        key = None if session is None else str(session)
        return self.grants.allow(host, key)

    def hold_navigations(self, hold: Callable[[str], Callable[[str], bool] | None]) -> None:
        """`hold(chat)`: the hosts a chat's tabs may go to (its approved plan), or None for any
        the URL policy allows. Asked at each top-level navigation, redirects included."""
        self.guard.hold = lambda key: None if key == SHARED else hold(key)

    def take_refused(self, session: object) -> list[RefusedHost]:
        """The hosts refused for this chat since the last call (each with reason and count).

        With a shared persistent profile, requests no single chat owns are included too.
        """
        key = str(session)
        taken = self.refused.take(key)
        if self._key(key) == SHARED:
            taken += self.refused.take(SHARED)
        return taken

    # --- sessions ----------------------------------------------------------------------------

    def session(self, session_id: object) -> BrowserSession:
        key = str(session_id)
        found = self._sessions.get(key)
        if found is None or found.closed:
            traffic = self._key(key)

            async def context_factory() -> BrowserContext:
                return await self._context_for_session(traffic)

            async def watch_page(context: BrowserContext, page: Page) -> Any:
                return await self.guard.watch_page(traffic, context, page)

            found = BrowserSession(
                key,
                context_factory=context_factory,
                page_factory=self._new_page,
                watch_page=watch_page,
                downloads_dir=lambda: self.config.downloads_dir,
                logs_enabled=lambda: (self.config.read_console, self.config.read_network),
                refusals=self._refusals,
            )
            self._sessions[key] = found
        return found

    async def close_session(self, session_id: object) -> None:
        """Close a chat's tabs and context (its cookies go with it unless the profile is persistent)."""
        key = str(session_id)
        session = self._sessions.pop(key, None)
        if session is not None:
            await session.close(close_context=self._shared is None)
        self.grants.forget(key)
        self.refused.forget(key)
        if self._key(key) != SHARED:
            await self.proxy.forget(key)

    async def configure(self, config: BrowserConfig) -> None:
        """Apply new settings: a new browser if launch settings changed; rules apply at once."""
        relaunch = config.launch_key() != self.config.launch_key()
        self.config = config
        if relaunch:
            await self._shutdown_browser()

    # --- launching ---------------------------------------------------------------------------

    def _launch_options(self, proxy: str) -> dict[str, Any]:
        config = self.config
        options: dict[str, Any] = {
            "headless": config.headless,
            "args": launch_args(config),
            "proxy": {"server": proxy, "bypass": BYPASS},
        }
        if config.executable_path:
            if not os.path.exists(config.executable_path):
                raise errors.refusal(
                    f"The browser set in Settings → Browser was not found. Install one with: {install_hint()}"
                )
            options["executable_path"] = config.executable_path
        elif config.channel:
            options["channel"] = config.channel
        else:
            choice = find_browser(None, branded_first=config.branded_first)
            if choice is None:
                raise errors.refusal(f"No browser was found. Install one with: {install_hint()}")
            if choice.channel and not choice.path:
                options["channel"] = choice.channel
            else:
                options["executable_path"] = choice.path
        return options

    def _context_options(self) -> dict[str, Any]:
        width, height = self.config.viewport
        return {
            "viewport": {"width": width, "height": height},
            "device_scale_factor": 1,
            "accept_downloads": True,
            # Service workers fetch outside the page's routes (the proxy still sees them); the
            # second layer wants every request, so pages get none.
            "service_workers": "block",
        }

    async def prepare(self) -> None:
        """Start Playwright's driver now, ahead of the first call that needs the browser (the
        driver takes a moment to start). The browser itself still launches with that call: a
        windowed one would open a window nobody asked for yet. A driver that does not start is
        only logged here; the first call tries again and says what went wrong."""
        async with self._launch_lock:
            if self._closed or self._playwright is not None:
                return
            try:
                self._playwright = await async_playwright().start()
            except (PlaywrightError, OSError):
                log.warning("Playwright's driver did not start ahead of use", exc_info=True)

    @property
    def prepared(self) -> bool:
        """Whether Playwright's driver is running (`prepare`, or a launch)."""
        return self._playwright is not None

    async def _ensure_started(self) -> None:
        async with self._launch_lock:
            if self._closed:
                raise errors.refusal(errors.TAB_CLOSED)
            if self._root is not None:
                return
            proxy = await self.proxy.listen(SHARED)
            options = self._launch_options(proxy)
            profile = self.config.profile_dir
            if profile is None:
                profile = self._temp_profile = Path(tempfile.mkdtemp(prefix="deskhand-browser-"))
            try:
                await asyncio.to_thread(seed_profile, profile)
            except OSError as exc:
                log.exception("Could not prepare the browser profile")
                raise errors.refusal(errors.LAUNCH_FAILED) from exc
            try:
                if self._playwright is None:
                    self._playwright = await async_playwright().start()
                root = await self._playwright.chromium.launch_persistent_context(
                    profile, **options, **self._context_options()
                )
            except PlaywrightError as exc:
                log.exception("Could not launch the browser")
                raise errors.refusal(errors.LAUNCH_FAILED) from exc
            root.on("close", lambda _context: self._lost())
            self._root = root
            if self.config.profile_dir is not None:
                await self._prepare(root, SHARED)
                self._spare_pages = list(root.pages)
                self._shared = root
            else:
                self._browser = root.browser
                # The startup window: chats open their own. A windowed Chromium quits when its
                # last window closes, so it goes once a chat's first page is there.
                self._startup_pages = list(root.pages)
                if self.config.headless:
                    await self._close_startup_pages()

    async def _prepare(self, context: BrowserContext, key: str) -> None:
        context.set_default_timeout(self.config.action_timeout * 1000)
        context.set_default_navigation_timeout(self.config.navigation_timeout * 1000)
        await self.guard.install(context, key)

    async def _context_for_session(self, key: str) -> BrowserContext:
        await self._ensure_started()
        if self._shared is not None:
            return self._shared
        if self._browser is None:
            raise errors.refusal(errors.LAUNCH_FAILED)
        proxy = await self.proxy.listen(key)
        try:
            context = await self._browser.new_context(
                proxy={"server": proxy, "bypass": BYPASS}, **self._context_options()
            )
            await self._prepare(context, key)
        except PlaywrightError as exc:
            raise errors.refusal(errors.LAUNCH_FAILED) from exc
        return context

    async def _new_page(self, context: BrowserContext) -> Page:
        if context is self._shared and self._spare_pages:
            page = self._spare_pages.pop(0)
            if not page.is_closed():
                return page
        page = await context.new_page()
        await self._close_startup_pages()
        return page

    async def _close_startup_pages(self) -> None:
        pages, self._startup_pages = self._startup_pages, []
        for page in pages:
            with contextlib.suppress(PlaywrightError):
                await page.close()

    def _refused(self, page: Page | None) -> None:
        for session in self._sessions.values():
            if page is not None and session.owns(page):
                session.refused(page)
                return
        self._refusals.note(page)  # a popup no session has announced yet

    def _lost(self) -> None:
        """The person closed the browser (or it crashed): start afresh on next use."""
        self._root = None
        self._browser = None
        self._shared = None
        self._spare_pages = []
        self._startup_pages = []
        for session in self._sessions.values():
            session.reset()

    # --- shutdown ----------------------------------------------------------------------------

    async def _shutdown_browser(self) -> None:
        for session in list(self._sessions.values()):
            with contextlib.suppress(PlaywrightError):
                await session.close(close_context=self._shared is None)
        self._sessions.clear()
        root = self._root
        self._root = self._browser = self._shared = None
        if root is not None:
            with contextlib.suppress(PlaywrightError):
                await root.close()  # a persistent launch: closing it ends the browser process
        self._drop_temp_profile()

    def _drop_temp_profile(self) -> None:
        if self._temp_profile is not None:
            shutil.rmtree(self._temp_profile, ignore_errors=True)
            self._temp_profile = None

    async def close(self) -> None:
        """Close every session, the browser, Playwright and the proxy. Safe to call twice.

        At quit the app may call this after its event loop stopped running (qasync runs the
        rest of the main coroutine once more after the Qt loop ends). Nothing can be awaited
        then, so the browser is left to Playwright's driver, which closes it when this process
        exits, and only what can be done without the loop is done.
        """
        if self._closed:
            return
        self._closed = True
        if not _loop_running():
            self._abandon()
            return
        try:
            await self._close_toolsets()
            await self._shutdown_browser()
            if self._playwright is not None:
                with contextlib.suppress(PlaywrightError, OSError):
                    await self._playwright.stop()
                self._playwright = None
        finally:
            await self.proxy.close()
            self._drop_temp_profile()

    async def _close_toolsets(self) -> None:
        """Hook for `BrowserPool`: retire the toolsets before the browser goes."""

    def _abandon(self) -> None:
        self._close_toolsets_now()
        self.proxy.close_now()
        for session in self._sessions.values():
            session.closed = True
        self._sessions.clear()
        self._root = self._browser = self._shared = None
        self._playwright = None
        # The temporary profile stays until the driver has closed the browser; it lives in the
        # system's temporary folder, which is cleaned on its own.

    def _close_toolsets_now(self) -> None:
        """Hook for `BrowserPool`: mark the toolsets closed without awaiting anything."""

    @property
    def launched(self) -> bool:
        return self._root is not None


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
