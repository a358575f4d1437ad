"""Web addresses as the person or the model writes them: made whole ("chatgpt" becomes
"https://chatgpt.com"), and their domains for the tab list. Pure."""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from urllib.parse import urlsplit, urlunsplit

MAX_URL = 2_000  # characters of an address kept (longer ones are cut where shown)


def _no_controls(text: str) -> bool:
    return not any(
        unicodedata.category(char).startswith(("C", "Z")) and char != " " for char in text
    )


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_HOST_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "[::1]"}


def normalize_url(text: str) -> str | None:
    """An http(s) URL for what a person or model typed, or None when it is not a web address.

    Adds https:// ("example.com"), turns a bare site name into .com ("chatgpt"), uses http for
    localhost, lowercases the host, and refuses other schemes, spaces, controls and user:pass@.
    """
    value = text.strip()
    if not value or len(value) > MAX_URL or " " in value or not _no_controls(value):
        return None
    scheme = _SCHEME.match(value)
    if "://" in value:
        if not scheme or scheme.group(1).lower() not in ("http", "https"):
            return None
    elif scheme and not re.match(r"^[^:/]+:\d+(?:[/?#]|$)", value):
        return None  # javascript:, data:, mailto:, about:, file: ...
    else:
        host_part = re.split(r"[/?#:]", value, maxsplit=1)[0].lower()
        if "." not in host_part and host_part not in _LOCAL_HOSTS:
            if not _HOST_LABEL.match(host_part):
                return None
            value = host_part + ".com" + value[len(host_part) :]
            host_part += ".com"
        plain = host_part in _LOCAL_HOSTS or _is_ip(host_part)
        value = ("http://" if plain and host_part in _LOCAL_HOSTS else "https://") + value
    try:
        parts = urlsplit(value)
        host = parts.hostname
        port = parts.port
    except ValueError:
        return None
    if not host or parts.username is not None or parts.password is not None:
        return None
    if not _is_ip(host) and not all(_HOST_LABEL.match(label) for label in host.split(".")):
        return None
    netloc = host if ":" not in host else f"[{host}]"
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path, parts.query, parts.fragment))


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def domain_of(url: str) -> str:
    """The host of a URL without "www.", or "" (about:blank, a file)."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host[4:] if host.startswith("www.") else host
