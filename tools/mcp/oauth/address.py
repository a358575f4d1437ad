"""A server's address as a sign-in's tokens are tied to it (no SDK needed to compare two)."""

from __future__ import annotations

from urllib.parse import urlsplit


def same_server(url: str) -> str:
    """A server's address as tokens are tied to it: scheme, host, port and path, no slash at the
    end, no query or fragment."""
    parts = urlsplit(url.strip())
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path.rstrip('/')}"
