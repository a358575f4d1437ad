"""What the browser was kept from reaching, per chat, for the tool card ("Blocked 3 requests ...").

Both network layers (the egress proxy and the per-tab route) note each request they refuse
here under the chat's key; the app takes the list after each browser call, which clears it.
Only the host is kept (never the path or query, which can carry secrets), with the reason and
how many requests were refused. The log is bounded so a page that hammers a refused address
cannot grow it without limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.browser.network.url_policy import Refusal

__all__ = ["RefusedHost", "RefusedRequests"]

MAX_HOSTS = 50  # per chat between two reports; later hosts are still counted under `others`


@dataclass(frozen=True)
class RefusedHost:
    """Requests to one host that were refused since the last report.

    `host` is canonical (a lower-case name, an IPv4 address, or an IPv6 address in brackets),
    the form `BrowserPool.allow_local` accepts back.
    """

    host: str
    reason: Refusal
    count: int

    @property
    def local(self) -> bool:
        """Whether the host is on this computer, a private network or a metadata service."""
        return self.reason in (Refusal.PRIVATE, Refusal.METADATA)


class RefusedRequests:
    """Refused hosts per chat key, in the order they were first refused."""

    def __init__(self) -> None:
        self._by_key: dict[str, dict[tuple[str, Refusal], int]] = {}

    def note(self, key: str, host: str, reason: Refusal) -> None:
        hosts = self._by_key.setdefault(key, {})
        entry = (host, reason)
        if entry in hosts or len(hosts) < MAX_HOSTS:
            hosts[entry] = hosts.get(entry, 0) + 1
        else:
            other = ("", reason)
            hosts[other] = hosts.get(other, 0) + 1

    def take(self, key: str) -> list[RefusedHost]:
        """The hosts refused for `key` since the last call, and forget them."""
        hosts = self._by_key.pop(key, {})
        return [RefusedHost(host, reason, count) for (host, reason), count in hosts.items()]

    def forget(self, key: str) -> None:
        self._by_key.pop(key, None)
