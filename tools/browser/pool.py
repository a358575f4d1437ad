"""One browser process for the whole app, one context (or set of tabs) per chat session.

`BrowserPool` launches the browser lazily on the first call that needs it, gives each chat
session its own `BrowserContext` (a fresh profile) or, with `profile_dir`, its own tabs in
one persistent Deskhand profile, and hands out a `PlaywrightBrowser` toolset per session:

    pool = BrowserPool(BrowserConfig(...), confirm=gate)
    toolset = pool.for_session(session_id)        # same instance until the config changes
    await pool.close_session(session_id)          # when the chat is deleted
    await pool.close()                            # on quit

The SDK's call context carries only the `tool_use` block, not which chat it belongs to,
so the session is chosen by which toolset instance the app calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from typing import TYPE_CHECKING, Any

from anthropic.tools.browser import BetaAsyncConfirmCallable, BetaToolConfigs
from playwright.async_api import Browser, BrowserContext, Page, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from tools.browser import errors
from tools.browser.config import BrowserConfig
from tools.browser.guard import RequestGuard, Resolver
from tools.browser.locate import find_browser, install_hint
from tools.browser.session import BrowserSession, PendingRefusals

if TYPE_CHECKING:
    from tools.browser.driver import PlaywrightBrowser, Progress

log = logging.getLogger(__name__)

__all__ = ["QUIET_ARGS", "BrowserPool"]

# The browser stays quiet: no update checks, sync or first-run pages reaching out on its own.
QUIET_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
)


def launch_args(config: BrowserConfig) -> list[str]:
    args = [*QUIET_ARGS, *config.extra_args]
    # Chromium refuses to start as root with its sandbox on (containers, CI).
    if sys.platform.startswith("linux") and hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


class BrowserPool:
    """Owns Playwright, the browser process and every session's context."""

    def __init__(
        self,
        config: BrowserConfig | None = None,
        *,
        confirm: BetaAsyncConfirmCallable | None = None,
        tool_configs: BetaToolConfigs | None = None,
        resolver: Resolver | None = None,
    ) -> None:
        """`confirm` is the default gate of every session's toolset; `tool_configs` go on the
        `tools[]` entry (e.g. `{"cache_control": {"type": "ephemeral"}}`)."""
        self.config = config or BrowserConfig()
        self.confirm = confirm
        self.tool_configs = tool_configs
        self.guard = RequestGuard(lambda: self.config.url_policy, self._refused, resolver=resolver)
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._shared: BrowserContext | None = None  # the persistent profile's one context
        self._spare_pages: list[Page] = []  # pages a persistent profile opens by itself
        self._sessions: dict[str, BrowserSession] = {}
        self._toolsets: dict[str, PlaywrightBrowser] = {}
        self._refusals = PendingRefusals()
        self._launch_lock = asyncio.Lock()
        self._closed = False

    # --- sessions ----------------------------------------------------------------------------

    def session(self, session_id: object) -> BrowserSession:
        key = str(session_id)
        found = self._sessions.get(key)
        if found is None or found.closed:
            found = BrowserSession(
                key,
                context_factory=self._context_for_session,
                page_factory=self._new_page,
                watch_page=self.guard.watch_page,
                downloads_dir=lambda: self.config.downloads_dir,
                logs_enabled=lambda: (self.config.read_console, self.config.read_network),
                refusals=self._refusals,
            )
            self._sessions[key] = found
        return found

    def for_session(
        self,
        session_id: object,
        *,
        confirm: BetaAsyncConfirmCallable | None = None,
        progress: Progress | None = None,
    ) -> PlaywrightBrowser:
        """The toolset for one chat session: cached, rebuilt when its confirm or the config changed."""
        from tools.browser.driver import PlaywrightBrowser

        key = str(session_id)
        confirm = confirm if confirm is not None else self.confirm
        cached = self._toolsets.get(key)
        if cached is not None and cached.confirm_hook is confirm and not cached.is_closed:
            if progress is not None:
                cached.progress = progress
            return cached
        toolset = PlaywrightBrowser._bound(
            self, self.session(key), confirm=confirm, progress=progress
        )
        self._toolsets[key] = toolset
        return toolset

    async def close_session(self, session_id: object) -> None:
        """Close a chat's tabs and context (its cookies go with it unless the profile is persistent)."""
        key = str(session_id)
        self._toolsets.pop(key, None)
        session = self._sessions.pop(key, None)
        if session is not None:
            await session.close(close_context=self._shared is None)

    async def configure(self, config: BrowserConfig) -> None:
        """Apply new settings: toolsets are rebuilt on next use; a new browser if launch settings changed."""
        relaunch = config.launch_key() != self.config.launch_key()
        self.config = config
        self._toolsets.clear()
        if relaunch:
            await self._shutdown_browser()

    # --- launching ---------------------------------------------------------------------------

    def _launch_options(self) -> dict[str, Any]:
        config = self.config
        options: dict[str, Any] = {"headless": config.headless, "args": launch_args(config)}
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
            # Service workers fetch outside the page's routes; without them every request is seen.
            "service_workers": "block",
        }

    async def _ensure_started(self) -> None:
        async with self._launch_lock:
            if self._closed:
                raise errors.refusal(errors.TAB_CLOSED)
            if self._browser is not None or self._shared is not None:
                return
            options = self._launch_options()
            try:
                if self._playwright is None:
                    self._playwright = await async_playwright().start()
                chromium = self._playwright.chromium
                if self.config.profile_dir is not None:
                    self.config.profile_dir.mkdir(parents=True, exist_ok=True)
                    context = await chromium.launch_persistent_context(
                        self.config.profile_dir, **options, **self._context_options()
                    )
                    await self._prepare(context)
                    context.on("close", lambda _context: self._lost())
                    self._spare_pages = list(context.pages)
                    self._shared = context
                else:
                    browser = await chromium.launch(**options)
                    browser.on("disconnected", lambda _browser: self._lost())
                    self._browser = browser
            except PlaywrightError as exc:
                log.exception("Could not launch the browser")
                raise errors.refusal(errors.LAUNCH_FAILED) from exc

    async def _prepare(self, context: BrowserContext) -> None:
        context.set_default_timeout(self.config.action_timeout * 1000)
        context.set_default_navigation_timeout(self.config.navigation_timeout * 1000)
        await self.guard.install(context)

    async def _context_for_session(self) -> BrowserContext:
        await self._ensure_started()
        if self._shared is not None:
            return self._shared
        assert self._browser is not None
        try:
            context = await self._browser.new_context(**self._context_options())
            await self._prepare(context)
        except PlaywrightError as exc:
            raise errors.refusal(errors.LAUNCH_FAILED) from exc
        return context

    async def _new_page(self, context: BrowserContext) -> Page:
        if context is self._shared and self._spare_pages:
            page = self._spare_pages.pop(0)
            if not page.is_closed():
                return page
        return await context.new_page()

    def _refused(self, page: Page | None) -> None:
        for session in self._sessions.values():
            if page is not None and session.owns(page):
                session.refused(page)
                return
        self._refusals.note(page)  # a popup no session has announced yet

    def _lost(self) -> None:
        """The person closed the browser window (or it crashed): start afresh on next use."""
        self._browser = None
        self._shared = None
        self._spare_pages = []
        for session in self._sessions.values():
            session.reset()

    # --- shutdown ----------------------------------------------------------------------------

    async def _shutdown_browser(self) -> None:
        for session in list(self._sessions.values()):
            await session.close(close_context=self._shared is None)
        self._sessions.clear()
        if self._shared is not None:
            with contextlib.suppress(PlaywrightError):
                await self._shared.close()
        if self._browser is not None:
            with contextlib.suppress(PlaywrightError):
                await self._browser.close()
        self._browser = None
        self._shared = None

    async def close(self) -> None:
        """Close every session, the browser and Playwright. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        for toolset in list(self._toolsets.values()):
            await toolset.close_toolset_only()
        self._toolsets.clear()
        await self._shutdown_browser()
        if self._playwright is not None:
            with contextlib.suppress(PlaywrightError, OSError):
                await self._playwright.stop()
            self._playwright = None

    @property
    def launched(self) -> bool:
        return self._browser is not None or self._shared is not None
