"""The second network layer: every request a browser context makes is vetted per tab as well.

The egress proxy (`proxy.py`) is the choke point: nothing reaches the network without passing
it. This layer sits in front of it inside the browser, where the page is known, so a
refused navigation can leave the tab where it was instead of showing an error page:

- a Playwright route on the context sees every request's first hop, including the very
  first request of a popup (Playwright installs it before the popup runs);
- a CDP `Fetch` interceptor on each page sees every hop after that, because Playwright
  forwards redirects without calling routes.

Both ask the same `EgressChecker` the proxy asks (same policy, same lookups). A refused
main-frame navigation is answered with an empty 204 and reported to the session as a
`BetaNavigationRefused`; anything else refused fails as `BlockedByClient`; a name that
does not resolve fails as `NameNotResolved`, which the model reads as a failed lookup.
Every refusal is noted in the chat's `RefusedRequests`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, CDPSession, Page, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

from tools.browser.network.check import EgressChecker
from tools.browser.network.grants import host_text
from tools.browser.network.refused import RefusedRequests
from tools.browser.network.url_policy import Refusal, UrlRefused, canonical_host

log = logging.getLogger(__name__)

__all__ = ["RequestGuard"]

_NETWORK_SCHEMES = ("http", "https", "ws", "wss")


class RequestGuard:
    """Vets requests with `checker` under a chat key; notes refusals in `refused`."""

    def __init__(
        self,
        checker: EgressChecker,
        refused: RefusedRequests,
        on_refused: Callable[[Page | None], None],
    ) -> None:
        self._checker = checker
        self._refused = refused
        self._on_refused = on_refused
        # Where a chat's pages may go (its approved plan's sites, and what the person allowed
        # beyond them), by chat key; None: anywhere the policy allows. Redirects and page
        # scripts are held to it too, so data leaves a plan's sites only with a sheet. The
        # plan's book says where (desktop/calls/sources/plan/book.py, `navigation_hold`).
        self.hold: Callable[[str], Callable[[str], bool] | None] = lambda _key: None

    def _held(self, url: str, key: str) -> bool:
        """Whether a top-level navigation to `url` leaves what chat `key` may reach."""
        allowed = self.hold(key)
        if allowed is None or url.split(":", 1)[0].lower() not in _NETWORK_SCHEMES:
            return False
        try:
            host = urlsplit(url).hostname
        except ValueError:
            return True
        return host is None or not allowed(host)

    def _plan_refusal(self, url: str, key: str) -> Refusal | None:
        if not self._held(url, key):
            return None
        self._refused.note(key, _host_of(url), Refusal.NOT_IN_PLAN)
        return Refusal.NOT_IN_PLAN

    async def verdict(self, url: str, *, navigation: bool, key: str) -> Refusal | None:
        """Why the browser must not fetch `url` for the chat `key`, or None to let it through."""
        scheme = url.split(":", 1)[0].lower()
        if scheme not in _NETWORK_SCHEMES:
            # data:, blob:, about: never leave the browser; file: and chrome: are not reachable
            # from web pages, and `navigate` refuses them before they get here.
            return None
        try:
            checked = self._checker.policy(key).check_request(url, navigation=navigation)
            if checked.host is not None:
                await self._checker.destination(checked.host, key, navigation=navigation)
        except UrlRefused as refused:
            if refused.reason is not Refusal.UNRESOLVED:
                self._refused.note(key, _host_of(url), refused.reason)
            return refused.reason
        return None

    async def _safe_verdict(self, url: str, *, navigation: bool, key: str) -> Refusal | None:
        try:
            return await self.verdict(url, navigation=navigation, key=key)
        except Exception:
            log.exception("URL check failed; refusing the request")
            return Refusal.MALFORMED

    # --- the context route: first hops, popups included ---------------------------------------

    async def install(self, context: BrowserContext, key: str) -> None:
        async def route(route: Route) -> None:
            await self._route(route, key)

        async def websocket(ws: WebSocketRoute) -> None:
            await self._websocket(ws, key)

        await context.route("**/*", route)
        await context.route_web_socket("**/*", websocket)

    async def _route(self, route: Route, key: str) -> None:
        request = route.request
        navigation = request.is_navigation_request()
        refusal = await self._safe_verdict(request.url, navigation=navigation, key=key)
        if refusal is None and navigation and _top_level(request):
            refusal = self._plan_refusal(request.url, key)
        try:
            if refusal is None:
                await route.continue_()
                return
            if refusal is Refusal.UNRESOLVED:
                await route.abort("namenotresolved")
                return
            if not navigation:
                await route.abort("blockedbyclient")
                return
            frame = _frame(request)
            if frame is None:
                # A popup's first navigation: its page does not exist yet. An empty answer would leave
                # an unannounced blank window, so it fails, and the session closes the error tab.
                await route.abort("blockedbyclient")
                self._on_refused(None)
            elif frame.parent_frame is None:
                await route.fulfill(status=204)
                self._on_refused(frame.page)
            else:
                await route.abort("blockedbyclient")
        except PlaywrightError:
            pass  # the page or request went away meanwhile

    async def _websocket(self, ws: WebSocketRoute, key: str) -> None:
        if await self._safe_verdict(ws.url, navigation=False, key=key) is None:
            ws.connect_to_server()
        else:
            await ws.close(code=1008, reason="Refused by the URL policy")

    # --- the per-page CDP interceptor: redirect hops ----------------------------------------------

    async def watch_page(self, key: str, context: BrowserContext, page: Page) -> CDPSession | None:
        """Intercept every request of `page` at the CDP level; None if the page is already gone."""
        try:
            session = await context.new_cdp_session(page)
            tree = await session.send("Page.getFrameTree")
            main_frame_id = tree["frameTree"]["frame"]["id"]

            async def paused(event: dict[str, Any]) -> None:
                await self._paused(session, page, main_frame_id, event, key)

            session.on("Fetch.requestPaused", paused)
            await session.send(
                "Fetch.enable", {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}
            )
        except PlaywrightError:
            return None
        return session

    async def _paused(
        self, session: CDPSession, page: Page, main_frame_id: str, event: dict[str, Any], key: str
    ) -> None:
        request_id = event["requestId"]
        url = str(event.get("request", {}).get("url", ""))
        navigation = event.get("resourceType") == "Document"
        main = navigation and event.get("frameId") == main_frame_id
        refusal = await self._safe_verdict(url, navigation=navigation, key=key)
        if refusal is None and main:
            refusal = self._plan_refusal(url, key)
        try:
            if refusal is None:
                await session.send("Fetch.continueRequest", {"requestId": request_id})
            elif refusal is Refusal.UNRESOLVED:
                await session.send(
                    "Fetch.failRequest", {"requestId": request_id, "errorReason": "NameNotResolved"}
                )
            elif main:
                await session.send(
                    "Fetch.fulfillRequest",
                    {"requestId": request_id, "responseCode": 204, "responseHeaders": []},
                )
                self._on_refused(page)
            else:
                await session.send(
                    "Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"}
                )
        except PlaywrightError:
            pass


def _host_of(url: str) -> str:
    """The canonical host of a refused URL, for the person's list; empty if it has none."""
    try:
        netloc = urlsplit(url).netloc.rsplit("@", 1)[-1]
        if netloc.startswith("["):
            raw = netloc.split("]", 1)[0] + "]"
        else:
            raw = netloc.rsplit(":", 1)[0] if ":" in netloc else netloc
        return host_text(canonical_host(raw))
    except (ValueError, UrlRefused):
        return ""


def _top_level(request: Any) -> bool:
    """Whether a navigation loads a tab's page (or a popup's), not a frame inside one."""
    frame = _frame(request)
    return frame is None or frame.parent_frame is None


def _frame(request: Any) -> Any:
    """The frame a navigation request loads into; None for a popup whose frame does not exist yet."""
    try:
        return request.frame
    except PlaywrightError:
        return None
