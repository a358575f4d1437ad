"""Remote connectors that sign in: the API Settings → Connectors and `deskhand connector` use.

- `rows(source)`: every connector as a `ConnectorRow` (its sign-in state, "Signed in" with the
  expiry, "Sign in", "Sign in again"; the number of tools last listed). No secret in a row.
- `await add(source, name, url, confirm=..., scopes=...)`: sign in (the SDK's OAuth flow, the
  person's default browser after `confirm` saw the `SignInSummary`), then the connector is
  saved, approved (the person added it) and its tools remembered. A server that asks for no
  sign-in is added as a plain URL connector. A sign-in that fails adds nothing.
- `await sign_in(source, name, confirm=...)`: the same for a connector already there ("Sign in",
  "Sign in again").
- `await sign_out(source, name)`: revoke the tokens where the server offers revocation, forget
  them; the connector stays ("Sign in"). `await remove(source, name)`: sign out, then remove.

Failures are `SignInProblem` (a `code` and a sentence) or `ConnectorProblem` (the same two,
for what is wrong before any sign-in: a name, an unreadable mcp.json).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

import desktop
from desktop.calls.sources.mcp.config import ConfigChanged, ServerEntry, name_problem
from desktop.calls.sources.mcp.sign_ins import SignInState, SignInStatus
from desktop.system import heavy
from tools.data import Data

# Re-exported for Settings → Connectors (ui never imports tools): the sheet's words, and why a
# sign-in did not happen.
from tools.mcp.oauth.errors import SignInProblem as SignInProblem
from tools.mcp.oauth.summary import Confirm as Confirm
from tools.mcp.oauth.summary import SignInSummary as SignInSummary

if TYPE_CHECKING:
    import mcp_types

    from desktop.calls.sources.mcp.source import McpSource
    from tools.mcp.oauth.flow import Opener, SignedIn


class ConnectorProblem(Exception):
    """Not signed in or not changed, before any sign-in: `code` and `message`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ConnectorRow(Data):
    """One connector as a row shows it."""

    name: str
    transport: str  # "stdio" or "http"
    url: str | None = None  # a remote connector's address (no secret: headers are not shown)
    status: str  # signed_in | sign_in | sign_in_again (signs in); approved | waiting | disabled
    signed_in: bool | None = None  # None: it does not sign in
    expires_at: float | None = None  # the access token's expiry (renewed before it)
    tools: int | None = None  # as last listed (None: never listed)
    words: str  # what the row says: "Signed in (token until …)", "Sign in again", "Approved"

    @property
    def signs_in(self) -> bool:
        return self.signed_in is not None


def _row(source: McpSource, name: str, entry: ServerEntry) -> ConnectorRow:
    tools = source.known_tools(name)
    row = ConnectorRow(
        name=name,
        transport="http" if entry.url else "stdio",
        url=entry.url,
        status="approved",
        tools=len(tools) if tools is not None else None,
        words="Approved",
    )
    if entry.oauth:
        state = source.sign_ins.state(name, entry.url or "")
        row.status, row.signed_in, row.words = state.status.value, state.signed_in, state.words
        row.expires_at = state.expires_at
    if entry.disabled:
        row.status, row.words = "disabled", "Turned off"
    elif not source.approvals.approved(name, entry):
        row.status, row.words = "waiting", "Waiting for your approval"
    return row


def rows(source: McpSource) -> list[ConnectorRow]:
    """Every connector in mcp.json, in its order (reads the keychain: call it off the loop)."""
    return [_row(source, name, entry) for name, entry in source.config.servers.items()]


def row(source: McpSource, name: str) -> ConnectorRow:
    entry = _entry(source, name)
    return _row(source, name, entry)


def state(source: McpSource, name: str) -> SignInState:
    return source.sign_ins.state(name, _url(source, name))


def _url(source: McpSource, name: str) -> str:
    entry = source.config.servers.get(name)
    return (entry.url or "") if entry is not None else ""


def _entry(source: McpSource, name: str) -> ServerEntry:
    _readable(source)
    entry = source.entry(name)
    if entry is None:
        raise ConnectorProblem("not_found", f"There is no connector named “{name}”.")
    return entry


def _readable(source: McpSource) -> None:
    if source.read.problem is not None:
        raise ConnectorProblem("bad_input", source.read.problem)


async def _sign_in(
    url: str,
    *,
    confirm: Confirm,
    scopes: Sequence[str],
    open_browser: Opener | None,
    within: float | None,
    client_id: str | None,
    client_secret: str | None,
) -> SignedIn:
    await heavy.ready(heavy.MCP)  # the SDK, imported off the loop in one place
    import mcp_types

    from tools.mcp.oauth import flow

    return await flow.sign_in(
        url,
        confirm=confirm,
        scopes=scopes,
        open_browser=open_browser or flow.default_browser,
        within=flow.SIGN_IN_TIMEOUT if within is None else within,
        client_id=client_id,
        client_secret=client_secret,
        implementation=mcp_types.Implementation(name="Deskhand", version=desktop.__version__),
    )


async def add(
    source: McpSource,
    name: str,
    url: str,
    *,
    confirm: Confirm,
    scopes: Sequence[str] = (),
    open_browser: Opener | None = None,
    within: float | None = None,
    client_id: str | None = None,
    client_secret: str | None = None,
) -> ConnectorRow:
    """Sign in to `url` and add it as `name` (approved). Raises ConnectorProblem or
    SignInProblem; nothing is saved unless it worked."""
    _readable(source)
    problem = name_problem(name, set(source.config.servers))
    if problem is not None:
        raise ConnectorProblem("bad_input", problem)
    if not url.startswith(("http://", "https://")):
        raise SignInProblem("bad_url", server=url)
    signed = await _sign_in(
        url,
        confirm=confirm,
        scopes=scopes,
        open_browser=open_browser,
        within=within,
        client_id=client_id,
        client_secret=client_secret,
    )
    signs_in = signed.record is not None
    entry = ServerEntry(url=url, oauth=signs_in, scopes=list(scopes) if signs_in else [])
    await _keep(source, name, entry, signed)
    return await asyncio.to_thread(row, source, name)


async def sign_in(
    source: McpSource,
    name: str,
    *,
    confirm: Confirm,
    open_browser: Opener | None = None,
    within: float | None = None,
    client_id: str | None = None,
    client_secret: str | None = None,
) -> ConnectorRow:
    """Sign a connector that is there in (again). Raises ConnectorProblem or SignInProblem."""
    entry = _entry(source, name)
    if not entry.url:
        raise ConnectorProblem("bad_input", f"“{name}” is started by a command: it cannot sign in.")
    kept = await asyncio.to_thread(source.sign_ins.load, name)
    if client_id is None and kept is not None and kept.client_given and kept.client:
        client_id = kept.client.get("client_id")  # the id the person gave before
        client_secret = kept.client.get("client_secret")
    signed = await _sign_in(
        entry.url,
        confirm=confirm,
        scopes=entry.scopes,
        open_browser=open_browser,
        within=within,
        client_id=client_id,
        client_secret=client_secret,
    )
    await _stop(source, name)  # it starts again with the new tokens
    await _keep(source, name, entry.model_copy(update={"oauth": signed.record is not None}), signed)
    return await asyncio.to_thread(row, source, name)


async def _stop(source: McpSource, name: str) -> None:
    """Stop the connector's server now; it starts again once signed in."""
    connection = source.connections.pop(name, None)
    if connection is not None:
        await connection.stop()
        source.changed()


async def _keep(source: McpSource, name: str, entry: ServerEntry, signed: SignedIn) -> None:
    """Tokens first (the keychain), then mcp.json: a connector is never there without them."""
    if signed.record is not None:
        try:
            await asyncio.to_thread(source.sign_ins.save, name, signed.record)
        except Exception as exc:  # a keychain that refuses (locked, denied): nothing is added
            raise ConnectorProblem(
                "failed", "The keychain did not take the sign-in; nothing was added."
            ) from exc
    try:
        source.put(name, entry)
    except (OSError, ConfigChanged) as exc:
        if signed.record is not None:
            await asyncio.to_thread(source.sign_ins.forget, name)
        raise ConnectorProblem(
            "failed", "mcp.json could not be written (or changed meanwhile); nothing was added."
        ) from exc
    source.learned(name, list(signed.tools))


async def sign_out(source: McpSource, name: str) -> bool:
    """Forget the connector's tokens, revoked first where the server offers it; returns whether
    the server took the revocation. The connector stays, to sign in again."""
    entry = _entry(source, name)
    await _stop(source, name)
    record = await asyncio.to_thread(source.sign_ins.load, name)
    revoked = False
    if record is not None and entry.url:
        await heavy.ready(heavy.MCP)
        from tools.mcp.oauth.flow import revoke

        revoked = await revoke(record, entry.url)
    await asyncio.to_thread(source.sign_ins.forget, name)
    source.changed()
    return revoked


async def remove(source: McpSource, name: str) -> bool:
    """Sign out (if signed in) and take the connector out of mcp.json; returns whether a
    revocation was taken."""
    _entry(source, name)
    revoked = await sign_out(source, name)
    try:
        source.put(name, None)
    except (OSError, ConfigChanged) as exc:
        raise ConnectorProblem("failed", "mcp.json could not be written.") from exc
    return revoked


async def tools(source: McpSource, name: str) -> list[mcp_types.Tool]:
    """The connector's tools, listed now (a signed-in connector refreshes its token if it must;
    one whose sign-in lapsed raises ConnectorProblem `needs_sign_in`)."""
    entry = _entry(source, name)
    if entry.oauth and not await _signed_in(source, name):
        raise ConnectorProblem("needs_sign_in", await asyncio.to_thread(_needs, source, name))
    if not source.approvals.approved(name, entry):
        raise ConnectorProblem(
            "needs_permission", f"“{name}” waits for your approval in Settings → Connectors."
        )
    await heavy.ready(heavy.MCP)
    from tools.mcp.spec import ServerState

    connection = source.connections.get(name) or source.connection_for(name, entry)
    started = connection.running
    status = await connection.start()
    try:
        if status.state is not ServerState.READY:
            if entry.oauth and not await _signed_in(source, name):
                raise ConnectorProblem(
                    "needs_sign_in", await asyncio.to_thread(_needs, source, name)
                )
            raise ConnectorProblem("failed", status.problem or f"“{name}” did not start.")
        found = list(connection.tools)
    finally:
        if not started and name not in source.connections:
            await connection.stop()
    source.learned(name, found)
    return found


async def _signed_in(source: McpSource, name: str) -> bool:
    state = await asyncio.to_thread(source.sign_ins.state, name, _url(source, name))
    return state.status is SignInStatus.SIGNED_IN


def _needs(source: McpSource, name: str) -> str:
    status = source.sign_ins.state(name, _url(source, name)).status
    again = " again" if status is SignInStatus.SIGN_IN_AGAIN else ""
    return f"“{name}” needs you to sign in{again} (Settings → Connectors, or `deskhand connector sign-in {name}`)."
