"""The SDK's `OAuthClientProvider`, with what Deskhand adds around it: tokens kept with their
expiry (the SDK reloads tokens but not when they expire, so a fresh process would send an
expired token, get a 401 and start a new sign-in instead of refreshing), the authorization
server's metadata kept too (so a fresh process refreshes at the right token endpoint), a refresh
a little before expiry, the person's scopes, and no authorization server but an https one (or
one on this computer).

What is kept is a `SignInRecord`, held by a `Keeper` the app gives (the keychain or an
owner-only file; in memory while a sign-in is not finished, so a failed one saves nothing).
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from pydantic import Field, PrivateAttr

from tools.data import Data
from tools.mcp.oauth.address import same_server
from tools.mcp.oauth.errors import SignInProblem

REFRESH_AHEAD = 60.0  # seconds before expiry a token is refreshed (at most a tenth of its life)


class SignInRecord(Data):
    """One connector's sign-in: secrets (tokens, the client's secret) and what to refresh with."""

    tokens: dict[str, Any] | None = None  # OAuthToken
    expires_at: float | None = None  # when the access token expires (seconds since the epoch)
    lifetime: float | None = None  # its `expires_in` when issued
    client: dict[str, Any] | None = None  # OAuthClientInformationFull
    client_given: bool = False  # a client id the person gave (kept across sign-ins)
    auth_server: dict[str, Any] | None = None  # OAuthMetadata
    resource: dict[str, Any] | None = None  # ProtectedResourceMetadata
    scopes: list[str] = Field(default_factory=list)  # what the person asked for
    lapsed: bool = False  # refresh failed or the grant was revoked: "Sign in again"
    # The MCP server these tokens were issued for: they are never sent anywhere else, even
    # when the connector's address changes in mcp.json (then it says "Sign in again").
    server: str = ""

    def refresh_at(self) -> float | None:
        """When to refresh: a little before expiry."""
        if self.expires_at is None:
            return None
        ahead = min(REFRESH_AHEAD, (self.lifetime or REFRESH_AHEAD * 10) / 10)
        return self.expires_at - ahead


class Keeper(Protocol):
    """Where one connector's record lives."""

    async def load(self) -> SignInRecord | None: ...

    async def save(self, record: SignInRecord) -> None: ...


class MemoryKeeper:
    """A record held in memory: a sign-in in progress, saved elsewhere only once it worked."""

    def __init__(self, record: SignInRecord | None = None) -> None:
        self.record = record

    async def load(self) -> SignInRecord | None:
        return self.record

    async def save(self, record: SignInRecord) -> None:
        self.record = record


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def secure(url: str) -> bool:
    """https, or http to this computer (the only places an authorization server may be)."""
    parts = urlsplit(url)
    return parts.scheme == "https" or (parts.scheme == "http" and loopback(parts.hostname or ""))


class AskedScopes(OAuthClientMetadata):
    """Client metadata whose scope stays the person's once `pin()`ned: the SDK sets the scope
    the server's 401 challenged just before it registers and authorizes."""

    _pinned: bool = PrivateAttr(default=False)

    def pin(self) -> AskedScopes:
        self._pinned = bool(self.scope)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "scope" and self._pinned:
            return
        super().__setattr__(name, value)


class KeptStorage:
    """The SDK's `TokenStorage` over a `Keeper`; it adds the expiry the SDK does not keep."""

    def __init__(self, keeper: Keeper, *, server: str = "") -> None:
        self.keeper = keeper
        self.server = server  # the connector's address now ("" while signing in)

    async def record(self) -> SignInRecord:
        return await self.keeper.load() or SignInRecord()

    def elsewhere(self, record: SignInRecord) -> bool:
        """Whether `record` was issued for another server than the one this storage serves."""
        return bool(self.server) and same_server(record.server) != same_server(self.server)

    async def get_tokens(self) -> OAuthToken | None:
        record = await self.record()
        if record.tokens is None or record.lapsed or self.elsewhere(record):
            return None
        return OAuthToken.model_validate(record.tokens)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        record = await self.record()
        # A rotated refresh token replaces the old one here (the SDK carries the old one over
        # only when the server sent none).
        record.tokens = tokens.model_dump(mode="json", exclude_none=True)
        record.lifetime = float(tokens.expires_in) if tokens.expires_in is not None else None
        record.expires_at = time.time() + record.lifetime if record.lifetime is not None else None
        record.lapsed = False
        await self.keeper.save(record)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        record = await self.record()
        if record.client is None or self.elsewhere(record):
            return None
        return OAuthClientInformationFull.model_validate(record.client)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        record = await self.record()
        record.client = client_info.model_dump(mode="json", exclude_none=True)
        await self.keeper.save(record)

    async def set_metadata(
        self, auth_server: OAuthMetadata | None, resource: ProtectedResourceMetadata | None
    ) -> None:
        record = await self.record()
        if auth_server is not None:
            record.auth_server = auth_server.model_dump(mode="json", exclude_none=True)
        if resource is not None:
            record.resource = resource.model_dump(mode="json", exclude_none=True)
        await self.keeper.save(record)


class DeskhandOAuth(OAuthClientProvider):
    """`OAuthClientProvider` that sees the kept expiry and metadata, refreshes ahead of expiry,
    asks for the person's scopes, and refuses a plain-http authorization server elsewhere.

    A problem found inside the SDK's flow is kept in `problem` as well as raised: the
    transport around the flow may wrap or swallow what it raised."""

    def __init__(
        self,
        server_url: str,
        client_metadata: OAuthClientMetadata,
        *,
        kept: KeptStorage,
        scopes: list[str],
        redirect_handler: Callable[[str], Awaitable[None]],
        callback_handler: Callable[[], Awaitable[AuthorizationCodeResult]],
    ) -> None:
        super().__init__(
            server_url,
            client_metadata,
            kept,
            redirect_handler=redirect_handler,
            callback_handler=callback_handler,
        )
        self.kept = kept
        self.scopes = scopes
        self.problem: SignInProblem | None = None

    def fail(self, problem: SignInProblem) -> SignInProblem:
        if self.problem is None:
            self.problem = problem
        return problem

    async def _initialize(self) -> None:
        await super()._initialize()
        record = await self.kept.record()
        self.context.token_expiry_time = record.refresh_at()
        if record.auth_server is not None and self.context.oauth_metadata is None:
            self.context.oauth_metadata = OAuthMetadata.model_validate(record.auth_server)
        if record.resource is not None and self.context.protected_resource_metadata is None:
            self.context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                record.resource
            )

    async def _after_tokens(self) -> None:
        record = await self.kept.record()
        if self.context.current_tokens is not None:
            self.context.token_expiry_time = record.refresh_at()
        await self.kept.set_metadata(
            self.context.oauth_metadata, self.context.protected_resource_metadata
        )

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        await super()._handle_token_response(response)
        await self._after_tokens()

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        refreshed = await super()._handle_refresh_response(response)
        if refreshed:
            await self._after_tokens()
        return refreshed

    def _select_authorization_server(self, advertised: list[str]) -> str:
        chosen = super()._select_authorization_server(advertised)
        if not secure(chosen):
            raise self.fail(
                SignInProblem("insecure_auth_server", host=urlsplit(chosen).netloc or chosen)
            )
        return chosen
