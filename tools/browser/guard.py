"""The URL policy at the request level: every request a browser context makes is vetted.

The SDK's `url_policy` sees only the address the model types into `navigate`. Pages go
further on their own: redirects, meta refreshes, `location = ...`, `window.open`, images,
fetches, WebSockets. Two interceptors cover them:

- a Playwright route on the context sees every request's first hop, including the very
  first request of a popup (Playwright installs it before the popup runs);
- a CDP `Fetch` interceptor on each page sees every hop after that, because Playwright
  forwards redirects without calling routes.

A refused main-frame navigation is answered with an empty 204, so the tab stays on the
page it was on (an error page would carry the refused address), and is reported to the
session as a `BetaNavigationRefused`. Anything else refused fails as `BlockedByClient`.

Host names are also resolved here, so a public name that points at 127.0.0.1 is refused
like the address itself. That check runs before the browser's own lookup, so a host that
answers differently the second time (DNS rebinding) can still slip through: egress rules
outside the browser are the backstop the SDK guide recommends.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import BrowserContext, CDPSession, Page, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

from tools.browser.url_policy import Refusal, UrlPolicy, UrlRefused

log = logging.getLogger(__name__)

__all__ = ["RequestGuard", "Resolver"]

Resolver = Callable[[str], Awaitable[list[str]]]
"""`host -> [address, ...]`; raises OSError when the name does not resolve."""

_NETWORK_SCHEMES = ("http", "https", "ws", "wss")
DNS_TTL = 30.0
DNS_TIMEOUT = 3.0


async def system_resolver(host: str) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


class RequestGuard:
    """Applies the policy `policy()` returns (read per request, so settings apply at once)."""

    def __init__(
        self,
        policy: Callable[[], UrlPolicy],
        on_refused: Callable[[Page | None], None],
        *,
        resolver: Resolver | None = None,
    ) -> None:
        self._policy = policy
        self._on_refused = on_refused
        self._resolve = resolver or system_resolver
        self._dns: dict[str, tuple[float, Refusal | None]] = {}

    async def verdict(self, url: str, *, navigation: bool) -> Refusal | None:
        """Why the browser must not fetch `url`, or None to let it through."""
        scheme = url.split(":", 1)[0].lower()
        if scheme not in _NETWORK_SCHEMES:
            # data:, blob:, about: never leave the browser; file: and chrome: are not reachable
            # from web pages, and `navigate` refuses them before they get here.
            return None
        policy = self._policy()
        try:
            checked = policy.check_request(url, navigation=navigation)
        except UrlRefused as refused:
            return refused.reason
        if isinstance(checked.host, str) and not checked.allow_listed:
            return await self._resolved_verdict(policy, checked.host)
        return None

    async def _resolved_verdict(self, policy: UrlPolicy, host: str) -> Refusal | None:
        now = time.monotonic()
        cached = self._dns.get(host)
        if cached is not None and cached[0] > now:
            return cached[1]
        verdict: Refusal | None = None
        try:
            addresses = await asyncio.wait_for(self._resolve(host), DNS_TIMEOUT)
        except (OSError, TimeoutError, UnicodeError):
            addresses = []  # the browser's own lookup will fail the same way
        for text in addresses:
            try:
                policy.check_address(ipaddress.ip_address(text.split("%", 1)[0]))
            except UrlRefused as refused:
                verdict = refused.reason
                break
            except ValueError:
                continue
        self._dns[host] = (now + DNS_TTL, verdict)
        return verdict

    # --- the context route: first hops, popups included ---------------------------------------

    async def install(self, context: BrowserContext) -> None:
        await context.route("**/*", self._route)
        await context.route_web_socket("**/*", self._websocket)

    async def _route(self, route: Route) -> None:
        request = route.request
        navigation = request.is_navigation_request()
        try:
            refusal = await self.verdict(request.url, navigation=navigation)
        except Exception:
            log.exception("URL check failed; refusing the request")
            refusal = Refusal.MALFORMED
        try:
            if refusal is None:
                await route.continue_()
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

    async def _websocket(self, ws: WebSocketRoute) -> None:
        if await self.verdict(ws.url, navigation=False) is None:
            ws.connect_to_server()
        else:
            await ws.close(code=1008, reason="Refused by the URL policy")

    # --- the per-page CDP interceptor: redirect hops ----------------------------------------------

    async def watch_page(self, context: BrowserContext, page: Page) -> CDPSession | None:
        """Intercept every request of `page` at the CDP level; None if the page is already gone."""
        try:
            session = await context.new_cdp_session(page)
            tree = await session.send("Page.getFrameTree")
            main_frame_id = tree["frameTree"]["frame"]["id"]

            async def paused(event: dict[str, Any]) -> None:
                await self._paused(session, page, main_frame_id, event)

            session.on("Fetch.requestPaused", paused)
            await session.send(
                "Fetch.enable", {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}
            )
        except PlaywrightError:
            return None
        return session

    async def _paused(
        self, session: CDPSession, page: Page, main_frame_id: str, event: dict[str, Any]
    ) -> None:
        request_id = event["requestId"]
        url = str(event.get("request", {}).get("url", ""))
        navigation = event.get("resourceType") == "Document"
        main = navigation and event.get("frameId") == main_frame_id
        try:
            refusal = await self.verdict(url, navigation=navigation)
        except Exception:
            log.exception("URL check failed; refusing the request")
            refusal = Refusal.MALFORMED
        try:
            if refusal is None:
                await session.send("Fetch.continueRequest", {"requestId": request_id})
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


def _frame(request: Any) -> Any:
    """The frame a navigation request loads into; None for a popup whose frame does not exist yet."""
    try:
        return request.frame
    except PlaywrightError:
        return None
