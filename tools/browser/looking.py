"""The browser members that go somewhere or read: navigation, seeing, tabs, time, developer tools.

Members that act on the page (pointer, keys, forms) are in `driver.py`, on top of these.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import MutableSequence
from typing import Any, cast

from anthropic.tools.browser import (
    BetaBrowserNavigateResult,
    BetaScreenshotResult,
    BetaToolsetCallContext,
)
from anthropic.types.beta import (
    BetaBrowserCloseTabInput,
    BetaBrowserFindInput,
    BetaBrowserGetPageTextInput,
    BetaBrowserJavascriptExecInput,
    BetaBrowserListTabsInput,
    BetaBrowserNavigateInput,
    BetaBrowserNewTabInput,
    BetaBrowserReadConsoleInput,
    BetaBrowserReadNetworkInput,
    BetaBrowserReadPageInput,
    BetaBrowserScreenshotInput,
    BetaBrowserStateTabEntryParam,
    BetaBrowserSwitchTabInput,
    BetaBrowserWaitInput,
    BetaBrowserZoomInput,
)
from playwright.async_api import Error as PlaywrightError

from tools.browser import errors
from tools.browser.network.proxy import NETWORK_ERROR_HEADER
from tools.browser.network.url_policy import UrlRefused
from tools.browser.page.controls import read_controls
from tools.browser.page.images import fit_scale, png_within_limits
from tools.browser.page.observe import DEFAULT_DEPTH, find_elements, render_page
from tools.browser.page.snapshot import AriaNode, release
from tools.browser.page.text import PAGE_TEXT_SCRIPT, RUN_SCRIPT, bound_text
from tools.browser.toolset import BrowserToolset, reading

__all__ = ["MAX_DURATION", "LookingMembers"]

MAX_DURATION = 30.0
SCRIPT_TIMEOUT = 30.0
ZOOM_UPSCALE = 4.0
LOG_CAP = 20_000


class LookingMembers(BrowserToolset):
    """Navigation, screenshots and reads, tabs, waiting, the console, the network log and scripts."""

    # --- members: navigation -------------------------------------------------------------------

    async def navigate(
        self, context: BetaToolsetCallContext, input: BetaBrowserNavigateInput
    ) -> BetaBrowserNavigateResult:
        tab = await self._tab(input)
        page = tab.page
        response = None
        word = input.url
        if word in ("back", "forward", "reload"):
            before = page.url
            if word == "back":
                response = await page.go_back(wait_until="domcontentloaded")
                if response is None and page.url == before:
                    raise errors.refusal(errors.NO_HISTORY_BACK)
            elif word == "forward":
                response = await page.go_forward(wait_until="domcontentloaded")
                if response is None and page.url == before:
                    raise errors.refusal(errors.NO_HISTORY_FORWARD)
            else:
                response = await page.reload(wait_until="domcontentloaded")
        else:
            try:
                target = self._pool.config.url_policy.check(input.url)
            except UrlRefused as refused:
                raise errors.refusal(refused.phrase) from None
            tab.refused = False
            downloads_before = self._download_count()
            try:
                response = await page.goto(target, wait_until="domcontentloaded")
            except PlaywrightError as exc:
                if tab.refused:
                    raise errors.refusal(errors.NAV_REFUSED) from exc
                if self._download_count() > downloads_before:
                    raise errors.refusal(errors.DOWNLOAD_INSTEAD) from exc
                raise errors.from_playwright(exc, navigating=True) from exc
        if response is not None:
            code = response.headers.get(NETWORK_ERROR_HEADER.lower())
            if code:  # the egress proxy answered for a site it could not or would not reach
                raise errors.refusal(errors.NET_PHRASES.get(code, errors.GENERIC_NET))
        with contextlib.suppress(PlaywrightError):
            await page.wait_for_load_state("load", timeout=2000)
        await tab.refresh_title()
        return BetaBrowserNavigateResult(
            url=page.url, status=response.status if response is not None else None, title=tab.title
        )

    def _download_count(self) -> int:
        return sum(
            1
            for change in self._session.changes
            if isinstance(change, dict) and change.get("type") == "download_started"
        )

    # --- members: seeing -----------------------------------------------------------------------

    async def screenshot(
        self, context: BetaToolsetCallContext, input: BetaBrowserScreenshotInput
    ) -> BetaScreenshotResult:
        tab = await self._tab(input)
        png = await tab.page.screenshot(type="png", animations="disabled", caret="initial")
        if self._scale >= 0.999:
            return BetaScreenshotResult(data=base64.b64encode(png).decode("ascii"))
        data, media_type = await asyncio.to_thread(png_within_limits, png, self._scale)
        return BetaScreenshotResult(data=data, media_type=cast(Any, media_type))

    async def zoom(
        self, context: BetaToolsetCallContext, input: BetaBrowserZoomInput
    ) -> BetaScreenshotResult:
        tab = await self._tab(input)
        width, height = self._config.viewport
        if len(input.region) != 4:
            raise errors.refusal(errors.BAD_REGION)
        x0, y0, x1, y1 = (value / self._scale for value in input.region)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
        if x1 - x0 < 1 or y1 - y0 < 1:
            raise errors.refusal(errors.BAD_REGION)
        scale = fit_scale(x1 - x0, y1 - y0, upscale_limit=ZOOM_UPSCALE) * 0.999
        if tab.cdp is not None:
            # Rendered at the higher scale, so small text gains real detail rather than blur.
            metrics = await tab.cdp.send("Page.getLayoutMetrics")
            viewport = metrics["cssVisualViewport"]
            clip = {
                "x": x0 + viewport["pageX"],
                "y": y0 + viewport["pageY"],
                "width": x1 - x0,
                "height": y1 - y0,
                "scale": scale,
            }
            shot = await tab.cdp.send("Page.captureScreenshot", {"format": "png", "clip": clip})
            png = base64.b64decode(shot["data"])
            data, media_type = await asyncio.to_thread(png_within_limits, png, 1.0)
        else:
            png = await tab.page.screenshot(
                type="png", clip={"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0}
            )
            data, media_type = await asyncio.to_thread(png_within_limits, png, scale)
        return BetaScreenshotResult(data=data, media_type=cast(Any, media_type))

    async def read_page(
        self, context: BetaToolsetCallContext, input: BetaBrowserReadPageInput
    ) -> str:
        tab = await self._tab(input)
        if input.filter == "interactive" and not input.ref:
            return await read_controls(
                tab.page,
                await self._snapshot_text(tab),
                depth=DEFAULT_DEPTH if input.depth is None else max(input.depth, 0),
                ref_of=self._ref_of(tab),
            )
        # A big page is tens of thousands of nodes per read (parsed with the collector paused):
        # with their links cut after, refcounting frees them and no full collection has to.
        root, secret = await self._snapshot(tab, boxes=input.filter is None)
        try:
            shown = root
            if input.ref:
                entry = tab.refs.resolve(input.ref)
                node = None
                if entry is not None:
                    node = next((n for n in root.walk() if n.pw_ref == entry.pw_ref), None)
                if node is None:
                    raise errors.refusal(errors.STALE_REF)
                shown = AriaNode(role="document", children=[node])
            return render_page(
                shown,
                ref_of=self._ref_of(tab),
                secret=secret,
                filter=input.filter,
                depth=input.depth,
                viewport=self._config.viewport,
            )
        finally:
            release(root)

    async def find(self, context: BetaToolsetCallContext, input: BetaBrowserFindInput) -> str:
        tab = await self._tab(input)
        root, secret = await self._snapshot(tab)
        return find_elements(root, input.query, ref_of=self._ref_of(tab), secret=secret)

    async def get_page_text(
        self, context: BetaToolsetCallContext, input: BetaBrowserGetPageTextInput
    ) -> str:
        tab = await self._tab(input)
        text = await reading(tab, tab.page.evaluate(PAGE_TEXT_SCRIPT))
        return bound_text(str(text or ""), what="page text")

    # --- members: time, tabs, developer tools --------------------------------------------------

    async def wait(self, context: BetaToolsetCallContext, input: BetaBrowserWaitInput) -> None:
        if not 0 <= input.duration <= MAX_DURATION:
            raise errors.refusal(errors.DURATION_TOO_LONG)
        await asyncio.sleep(input.duration)

    async def new_tab(
        self, context: BetaToolsetCallContext, input: BetaBrowserNewTabInput
    ) -> BetaBrowserStateTabEntryParam:
        tab = await self._session.new_tab()
        return tab.entry(active=True)

    async def list_tabs(
        self, context: BetaToolsetCallContext, input: BetaBrowserListTabsInput
    ) -> list[BetaBrowserStateTabEntryParam]:
        active = self._session.active
        return [tab.entry(active=tab.tab_id == active) for tab in self._session.tabs.values()]

    async def switch_tab(
        self, context: BetaToolsetCallContext, input: BetaBrowserSwitchTabInput
    ) -> BetaBrowserStateTabEntryParam:
        return self._session.switch(input.tab_id).entry(active=True)

    async def close_tab(
        self, context: BetaToolsetCallContext, input: BetaBrowserCloseTabInput
    ) -> None:
        await self._session.close_tab(input.tab_id)

    async def read_console(
        self, context: BetaToolsetCallContext, input: BetaBrowserReadConsoleInput
    ) -> str:
        tab = await self._tab(input)
        return _drain(tab.console, empty="no console messages", what="console output")

    async def read_network(
        self, context: BetaToolsetCallContext, input: BetaBrowserReadNetworkInput
    ) -> str:
        tab = await self._tab(input)
        await tab.logged()  # a request that just finished is still being written down
        return _drain(tab.network, empty="no network requests", what="network log")

    async def javascript_exec(
        self, context: BetaToolsetCallContext, input: BetaBrowserJavascriptExecInput
    ) -> str:
        tab = await self._tab(input)
        before = tab.nav_mark()
        try:
            # The model's code travels as an argument and runs through indirect eval: it is
            # never spliced into the driver's own script.
            outcome = await asyncio.wait_for(
                tab.page.evaluate(RUN_SCRIPT, input.text), SCRIPT_TIMEOUT
            )
        except TimeoutError as exc:
            raise errors.refusal(errors.SCRIPT_TIMEOUT) from exc
        await tab.settle(before)
        if not isinstance(outcome, dict) or not outcome.get("ok"):
            name = outcome.get("name") if isinstance(outcome, dict) else None
            return_name = (
                name if isinstance(name, str) and name.isalnum() and len(name) < 40 else None
            )
            raise errors.refusal(
                f"{errors.SCRIPT_THREW} ({return_name})."
                if return_name
                else f"{errors.SCRIPT_THREW}."
            )
        if outcome.get("undefined"):
            return "undefined"
        value = outcome.get("value")
        text = (
            value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        )
        return bound_text(text, what="result")


def _drain(log: MutableSequence[str], *, empty: str, what: str) -> str:
    """A tab's log since the last read (emptied as it is read), bounded for the model."""
    lines = list(log)
    log.clear()
    if not lines:
        return f"({empty} since the last read)"
    return bound_text("\n".join(lines), what=what, cap=LOG_CAP)
