"""The one check every browser request passes: may this host be reached, and at which addresses?

`EgressChecker.destination(host, key)` applies the chat's policy (`key` picks the grants) to
the host, resolves a name itself, vets every address the name resolves to, and returns those
addresses. The egress proxy connects to exactly them, so a name that answers differently the
next time (DNS rebinding) cannot slip a private address past the check; the per-tab route
asks the same question, so both layers agree.

It fails closed: a lookup that errors, times out or yields nothing usable refuses the host
(`Refusal.UNRESOLVED`), and only successful lookups are cached (briefly), so a failure is
never remembered as an allow.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import time
from collections.abc import Awaitable, Callable

from tools.browser.network.url_policy import IPAddress, Refusal, UrlPolicy, UrlRefused

log = logging.getLogger(__name__)

__all__ = ["EgressChecker", "Resolver", "system_resolver"]

Resolver = Callable[[str], Awaitable[list[str]]]
"""`host -> [address, ...]`; raises OSError when the name does not resolve."""

RESOLVE_TIMEOUT = 3.0
CACHE_SECONDS = 30.0
CACHE_SIZE = 512


async def system_resolver(host: str) -> list[str]:
    """The system's lookup through asyncio (a worker thread): the event loop never blocks."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


class EgressChecker:
    """Judges hosts with `policy(key)` and resolves names with `resolver` (the system's)."""

    def __init__(
        self,
        policy: Callable[[str], UrlPolicy],
        *,
        resolver: Resolver | None = None,
        timeout: float = RESOLVE_TIMEOUT,
    ) -> None:
        self._policy = policy
        self._resolve = resolver or system_resolver
        self._timeout = timeout
        self._cache: dict[str, tuple[float, tuple[IPAddress, ...]]] = {}
        self._lookups: dict[str, asyncio.Future[tuple[IPAddress, ...]]] = {}

    def policy(self, key: str) -> UrlPolicy:
        return self._policy(key)

    async def destination(
        self, host: str | IPAddress, key: str, *, navigation: bool = False
    ) -> tuple[IPAddress, ...]:
        """The addresses to connect to for `host` (canonical, see `canonical_host`).

        Raises `UrlRefused` when the policy refuses the host or any address it resolves to,
        or when the name cannot be resolved in time.
        """
        policy = self._policy(key)
        allow_listed = policy.judge(host, navigation=navigation)
        if not isinstance(host, str):
            return (host,)
        addresses = await self.lookup(host)
        if not allow_listed:
            for address in addresses:
                policy.check_address(address)
        return addresses

    async def lookup(self, name: str) -> tuple[IPAddress, ...]:
        """The addresses `name` resolves to; `UrlRefused(UNRESOLVED)` on any failure."""
        now = time.monotonic()
        cached = self._cache.get(name)
        if cached is not None and cached[0] > now:
            return cached[1]
        pending = self._lookups.get(name)
        if pending is None:
            pending = asyncio.ensure_future(self._fresh_lookup(name))
            self._lookups[name] = pending
            pending.add_done_callback(lambda _done: self._lookups.pop(name, None))
        # shielded: one caller giving up must not cancel the lookup others are waiting for
        return await asyncio.shield(pending)

    async def _fresh_lookup(self, name: str) -> tuple[IPAddress, ...]:
        try:
            texts = await asyncio.wait_for(self._resolve(name), self._timeout)
        except (OSError, TimeoutError, UnicodeError, ValueError) as exc:
            log.info("Lookup of a host failed (%s); refusing it", type(exc).__name__)
            raise UrlRefused(Refusal.UNRESOLVED) from None
        addresses: list[IPAddress] = []
        for text in texts:
            try:
                address = ipaddress.ip_address(text)
            except ValueError:
                continue
            if address not in addresses:
                addresses.append(address)
        if not addresses:
            raise UrlRefused(Refusal.UNRESOLVED)
        found = tuple(addresses)
        if len(self._cache) >= CACHE_SIZE:
            self._cache.pop(next(iter(self._cache)))
        self._cache[name] = (time.monotonic() + CACHE_SECONDS, found)
        return found
