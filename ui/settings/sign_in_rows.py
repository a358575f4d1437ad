"""Settings → Connectors: what a connector that signs in says in its row, and its button.

A row says "Signed in · expires 14:05" (with "Sign out", which asks first), "Not signed in"
(with "Sign in"), or why it must sign in again (with "Sign in again"). The states come from
`remote.rows`, which reads the keychain: `SignInRows` reads them in a thread and tells the page
when they changed, so the window never waits on a keychain.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.calls.sources.mcp import remote
from desktop.calls.sources.mcp.remote import ConnectorRow
from desktop.calls.sources.mcp.source import McpSource
from ui.questions import ask_to_confirm

SIGNED_IN, SIGN_IN, SIGN_IN_AGAIN = "signed_in", "sign_in", "sign_in_again"
BUTTON = {SIGNED_IN: "Sign out", SIGN_IN: "Sign in", SIGN_IN_AGAIN: "Sign in again"}
NOT_SIGNED_IN = "Not signed in"
AGAIN = "Sign in again: the sign-in was revoked or could not be renewed"
AGAIN_TIP = (
    "The server no longer takes Deskhand's sign-in: it was revoked (on the server, or by "
    "signing out elsewhere), or it expired and could not be renewed. Claude's calls to its "
    "tools are refused until you sign in again."
)
SIGN_OUT_QUESTION = "Sign out of “{name}”?"
SIGN_OUT_DETAIL = (
    "Deskhand forgets this connector's sign-in, and asks the server to revoke it where the "
    "server offers that. Claude can't use its tools until you sign in again."
)
REMOVE_QUESTION = "Remove “{name}”?"
REMOVE_DETAIL = (
    "It signs in, so it is removed now, not on Save: Deskhand signs out (asking the server to "
    "revoke the sign-in where it offers that) and takes it out of mcp.json."
)
SIGNED_OUT = "Signed out of “{name}”."
REMOVED = "Removed “{name}”."
REVOKED = " The server revoked the sign-in."


def expiry(at: float, now: float | None = None) -> str:
    """ "14:05" today, "3 Dec 14:05" on another day (local time)."""
    when, today = time.localtime(at), time.localtime(time.time() if now is None else now)
    if when[:3] == today[:3]:
        return time.strftime("%H:%M", when)
    return f"{when.tm_mday} {time.strftime('%b %H:%M', when)}"


def sign_in_words(row: ConnectorRow) -> str:
    """The status a signing-in connector's row shows."""
    if row.status == SIGNED_IN:
        return f"Signed in · expires {expiry(row.expires_at)}" if row.expires_at else "Signed in"
    if row.status == SIGN_IN_AGAIN:
        return AGAIN
    return NOT_SIGNED_IN


def sign_in_status(row: ConnectorRow | None) -> str | None:
    """The sign-in status of a row that signs in (None: it does not, or is not yet known)."""
    if row is None or not row.signs_in or row.status not in BUTTON:
        return None
    return row.status


class SignInRows:
    """The connectors' sign-in rows, read off the loop; `changed()` runs when they arrive."""

    def __init__(self, source: McpSource | None, changed: Callable[[], None]) -> None:
        self.source = source
        self.changed = changed
        self.rows: dict[str, ConnectorRow] = {}
        self._task: asyncio.Task[None] | None = None
        self._again = False

    def get(self, name: str | None) -> ConnectorRow | None:
        return self.rows.get(name) if name is not None else None

    def refresh(self) -> None:
        """Read the rows again (a read under way is followed by one more)."""
        if self.source is None:
            return
        if self._task is not None and not self._task.done():
            self._again = True
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            # No loop runs (a dialog built before the app's loop starts): no loop to block, so
            # the rows are read here.
            self._show(remote.rows(self.source))
            return
        self._task = asyncio.ensure_future(self._read(self.source))

    def _show(self, rows: list[ConnectorRow]) -> None:
        self.rows = {row.name: row for row in rows}
        self.changed()

    async def _read(self, source: McpSource) -> None:
        while True:
            self._again = False
            self._show(await asyncio.to_thread(remote.rows, source))
            if not self._again:
                return

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None


def ask_sign_out(parent: QWidget, name: str, signed_out: Callable[[], None]) -> QMessageBox:
    """Ask before signing out; `signed_out()` runs only if the person agrees."""
    return _ask(
        parent, "Sign out", SIGN_OUT_QUESTION.format(name=name), SIGN_OUT_DETAIL, signed_out
    )


def ask_remove(parent: QWidget, name: str, removed: Callable[[], None]) -> QMessageBox:
    """Ask before removing a connector that signs in; `removed()` runs only if agreed."""
    return _ask(parent, "Remove", REMOVE_QUESTION.format(name=name), REMOVE_DETAIL, removed)


def _ask(
    parent: QWidget, verb: str, question: str, detail: str, then: Callable[[], None]
) -> QMessageBox:
    box = ask_to_confirm(
        parent,
        title=verb,
        question=question,
        detail=detail,
        verb=verb,
        then=then,
        icon=QMessageBox.Icon.Question,
    )
    box.setObjectName("signInQuestion")
    return box
