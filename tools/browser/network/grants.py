"""Local addresses the person let through after the browser refused them: for one chat or all.

Only the person grants these (the app calls `BrowserPool.allow_local` from a button on the
tool card); nothing the model sends reaches it. A grant works like an `allow_hosts` entry
(the host and its subdomains; an address exactly), and a block-list entry still wins.
Grants live until the app quits; "always" is the Settings allow list, which the app saves.

Traffic of the shared persistent profile, and the browser's own, cannot be told apart by
chat, so it gets every chat's grants (`SHARED`): those chats share cookies and logins anyway.
"""

from __future__ import annotations

import ipaddress

from tools.browser.network.url_policy import UrlPolicy, entry_host

__all__ = ["SHARED", "LocalGrants", "host_text"]

SHARED = ""  # the key of traffic no single chat owns


def host_text(host: str | ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """A canonical host as text: names and IPv4 as they are, IPv6 in brackets."""
    if isinstance(host, ipaddress.IPv6Address):
        return f"[{host.compressed}]"
    return str(host)


class LocalGrants:
    """Extra allowed hosts per chat key, and for every chat (`key=None`)."""

    def __init__(self) -> None:
        self._everywhere: list[str] = []
        self._by_key: dict[str, list[str]] = {}
        self._base: UrlPolicy | None = None
        self._policies: dict[str, UrlPolicy] = {}

    def allow(self, host: str, key: str | None) -> str:
        """Grant `host` (a name, an address, `host:port` or a URL) and return it canonical.

        Raises `ValueError` when `host` is not something a browser could reach.
        """
        parsed = entry_host(host)
        if parsed is None:
            raise ValueError("not a host name or address")
        text = host_text(parsed)
        target = self._everywhere if key is None else self._by_key.setdefault(key, [])
        if text not in target:
            target.append(text)
        self._policies.clear()
        return text

    def hosts(self, key: str) -> tuple[str, ...]:
        if key == SHARED:
            chats = [host for hosts in self._by_key.values() for host in hosts]
            return (*self._everywhere, *chats)
        return (*self._everywhere, *self._by_key.get(key, ()))

    def policy_for(self, base: UrlPolicy, key: str) -> UrlPolicy:
        """`base` with the grants that apply to `key` (cached until the next grant)."""
        if base is not self._base:
            self._policies.clear()
            self._base = base
        policy = self._policies.get(key)
        if policy is None:
            policy = self._policies[key] = base.with_allowed(self.hosts(key))
        return policy

    def forget(self, key: str) -> None:
        if self._by_key.pop(key, None) is not None:
            self._policies.clear()
