"""A sign-in, from a URL to a list of tools, and what a running connector's transport uses.

`sign_in` starts the loopback listener, lets the SDK's provider find out on the server's 401
where to sign in (protected-resource and authorization-server metadata), register Deskhand
where the server offers it (else use the client id the person gave), and build the
authorization URL. Before anything opens, `confirm` gets a `SignInSummary` (the server, the
authorization server's host, the scopes): the window shows a sheet, the command line prints
it. Only then does the person's default browser open (Python's `webbrowser`, which honours
`$BROWSER`), never the agent's. The code comes back to the listener; the SDK exchanges it
(PKCE) and the tools are listed with the new token. Everything is held in memory until then:
a sign-in that fails keeps nothing.

`running_auth` is the provider a configured connector's transport uses: it refreshes (ahead
of expiry, across restarts) and never opens a browser; when it would need one, the record is
marked lapsed and the connector's row says "Sign in again".
"""

from __future__ import annotations

import asyncio
import webbrowser
from collections.abc import Awaitable, Callable, Sequence
from urllib.parse import parse_qs, urlsplit

import httpx2
import mcp_types
from mcp.client.auth import OAuthFlowError, OAuthRegistrationError
from mcp.client.auth.oauth2 import OAuthContext
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from tools.data import Data
from tools.mcp.connection import ServerConnection
from tools.mcp.oauth.errors import SignInNeeded, SignInProblem
from tools.mcp.oauth.listener import LoopbackListener
from tools.mcp.oauth.provider import (
    AskedScopes,
    DeskhandOAuth,
    Keeper,
    KeptStorage,
    MemoryKeeper,
    SignInRecord,
    secure,
)
from tools.mcp.oauth.summary import Confirm, SignInSummary
from tools.mcp.spec import HttpSpec, ServerState

SIGN_IN_TIMEOUT = 300.0  # seconds the person has to finish in the browser
CLIENT_NAME = "Deskhand"
# Never used: a running connector opens no browser, but the SDK wants a redirect URI to hold.
UNUSED_REDIRECT = "http://127.0.0.1/callback"


class SignedIn(Data):
    """A finished sign-in: the record to keep (None: the server asked for none) and the tools."""

    record: SignInRecord | None
    tools: list[mcp_types.Tool]


Opener = Callable[[str], Awaitable[None]]


async def default_browser(url: str) -> None:
    """The person's default browser (`$BROWSER` if set), off the loop: a `$BROWSER` command
    is waited for."""
    if not await asyncio.to_thread(webbrowser.open, url):
        raise SignInProblem("no_browser")


def _metadata(redirect_uri: str, scopes: Sequence[str]) -> OAuthClientMetadata:
    return AskedScopes(
        redirect_uris=[AnyUrl(redirect_uri)],
        client_name=CLIENT_NAME,
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=" ".join(scopes) or None,
    ).pin()


class _SigningStorage(KeptStorage):
    """While signing in: a registration must send the code back to this listener only."""

    def __init__(self, keeper: Keeper, listener: LoopbackListener, fail: Callable[..., Exception]):
        super().__init__(keeper)
        self.listener = listener
        self.fail = fail

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        for uri in client_info.redirect_uris or []:
            if str(uri) != self.listener.redirect_uri:
                raise self.fail(
                    SignInProblem("redirect_off_loopback", host=urlsplit(str(uri)).netloc)
                )
        await super().set_client_info(client_info)


async def sign_in(
    url: str,
    *,
    confirm: Confirm,
    scopes: Sequence[str] = (),
    open_browser: Opener = default_browser,
    within: float = SIGN_IN_TIMEOUT,
    client_id: str | None = None,
    client_secret: str | None = None,
    implementation: mcp_types.Implementation | None = None,
) -> SignedIn:
    """Sign in to the server at `url` and list its tools. Raises SignInProblem."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SignInProblem("bad_url", server=url)
    listener = LoopbackListener()
    await listener.start()
    record = SignInRecord(scopes=list(scopes), server=url)
    if client_id:
        record.client_given = True
        record.client = OAuthClientInformationFull(
            client_id=client_id,
            client_secret=client_secret or None,
            redirect_uris=[AnyUrl(listener.redirect_uri)],
            token_endpoint_auth_method="client_secret_post" if client_secret else "none",
        ).model_dump(mode="json", exclude_none=True)
    keeper = MemoryKeeper(record)
    provider: DeskhandOAuth

    def fail(problem: SignInProblem) -> SignInProblem:
        return provider.fail(problem)

    async def to_browser(authorization_url: str) -> None:
        _check_authorization(provider, authorization_url, listener)
        query = parse_qs(urlsplit(authorization_url).query)
        listener.expect((query.get("state") or [""])[0])
        summary = SignInSummary(
            server=url,
            auth_host=urlsplit(authorization_url).netloc,
            scopes=(query.get("scope") or [""])[0].split(),
        )
        if not await confirm(summary):
            raise fail(SignInProblem("not_confirmed"))
        try:
            await open_browser(authorization_url)
        except SignInProblem as exc:
            raise fail(exc) from None

    async def code_back() -> AuthorizationCodeResult:
        try:
            return await listener.result(within)
        except SignInProblem as exc:
            raise fail(exc) from None

    provider = DeskhandOAuth(
        url,
        _metadata(listener.redirect_uri, scopes),
        redirect_handler=to_browser,
        callback_handler=code_back,
        kept=_SigningStorage(keeper, listener, fail),
        scopes=list(scopes),
    )
    connection = ServerConnection(
        "sign-in", HttpSpec(url=url), auth=provider, client_info=implementation
    )
    try:
        status = await connection.start()
        tools = list(connection.tools)
    finally:
        await connection.stop()
        await listener.close()
    if status.state is not ServerState.READY:
        raise _why(provider, connection, url, client_given=bool(client_id))
    kept = keeper.record
    signed = kept is not None and kept.tokens is not None
    return SignedIn(record=kept if signed else None, tools=tools)


def _check_authorization(
    provider: DeskhandOAuth, authorization_url: str, listener: LoopbackListener
) -> None:
    """Before the browser opens: every endpoint of the authorization server is https (or on
    this computer), and the code comes back to this listener only."""
    metadata = provider.context.oauth_metadata
    endpoints = [authorization_url]
    if metadata is not None:
        endpoints += [
            str(e)
            for e in (metadata.issuer, metadata.token_endpoint, metadata.revocation_endpoint)
            if e is not None
        ]
    for endpoint in endpoints:
        if not secure(endpoint):
            raise provider.fail(
                SignInProblem("insecure_auth_server", host=urlsplit(endpoint).netloc)
            )
    redirect = (parse_qs(urlsplit(authorization_url).query).get("redirect_uri") or [""])[0]
    if redirect != listener.redirect_uri:
        raise provider.fail(
            SignInProblem("redirect_off_loopback", host=urlsplit(redirect).netloc or "?")
        )


def _why(
    provider: DeskhandOAuth, connection: ServerConnection, url: str, *, client_given: bool
) -> SignInProblem:
    """What went wrong, from what the flow kept (the transport may have wrapped it)."""
    if provider.problem is not None:
        return provider.problem
    error = connection.error
    if isinstance(error, OAuthRegistrationError) and not client_given:
        return SignInProblem("needs_client_id", server=url)
    if isinstance(error, OAuthFlowError):
        return SignInProblem("failed", server=url)
    return SignInProblem("not_mcp_server", server=url)


def running_auth(
    url: str, keeper: Keeper, on_lapsed: Callable[[], None], *, name: str
) -> DeskhandOAuth:
    """The provider of connector `name`'s transport: refreshes, never opens a browser."""
    kept = KeptStorage(keeper, server=url)
    provider: DeskhandOAuth

    async def lapsed(_authorization_url: str) -> None:
        record = await kept.record()
        record.lapsed = True
        record.tokens = None  # refused by the server: nothing worth keeping
        record.expires_at = None
        await keeper.save(record)
        on_lapsed()
        raise provider.fail(SignInNeeded(name))

    async def never() -> AuthorizationCodeResult:
        raise provider.fail(SignInNeeded(name))

    provider = DeskhandOAuth(
        url,
        _metadata(UNUSED_REDIRECT, ()),
        redirect_handler=lapsed,
        callback_handler=never,
        kept=kept,
        scopes=[],
    )
    return provider


async def revoke(record: SignInRecord, server: str) -> bool:
    """Revoke the record's tokens where the authorization server offers revocation (RFC 7009);
    returns whether it answered. The SDK has no client for it; this is one form post per
    token, authenticated as the SDK authenticates its token requests."""
    endpoint = (record.auth_server or {}).get("revocation_endpoint")
    if not endpoint or not secure(str(endpoint)) or record.tokens is None:
        return False
    tokens = OAuthToken.model_validate(record.tokens)
    client = OAuthClientInformationFull.model_validate(record.client) if record.client else None
    context = OAuthContext(
        server_url=server,
        client_metadata=_metadata(UNUSED_REDIRECT, ()),
        storage=KeptStorage(MemoryKeeper(record)),
        redirect_handler=None,
        callback_handler=None,
        client_info=client,
    )
    answered = False
    async with httpx2.AsyncClient(timeout=15.0) as http:
        for token, hint in (
            (tokens.refresh_token, "refresh_token"),
            (tokens.access_token, "access_token"),
        ):
            if not token:
                continue
            data = {"token": token, "token_type_hint": hint}
            if client is not None:
                data["client_id"] = client.client_id
            headers = {"Content-Type": "application/x-www-form-urlencoded"}
            data, headers = context.prepare_token_auth(data, headers)
            try:
                response = await http.post(str(endpoint), data=data, headers=headers)
            except httpx2.HTTPError:
                continue
            answered = answered or response.status_code == 200
    return answered
