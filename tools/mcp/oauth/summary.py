"""What the person reads before a sign-in opens the browser, and the question asked with it.

Plain data, apart from the flow (which loads the SDK), so the window's sheet and the command
line can name it without loading anything."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tools.data import Data


class SignInSummary(Data):
    """The server, the authorization server's host, the scopes: shown before the browser opens."""

    server: str  # the MCP server's URL
    auth_host: str  # the authorization server's host (and port)
    scopes: list[str]  # empty: the server's default


# Shown the summary, the person goes on (True) or not; the window's sheet, or the command line.
Confirm = Callable[[SignInSummary], Awaitable[bool]]
