"""A sign-in through the MCP SDK's own client auth, against the SDK's server auth on 127.0.0.1
(tests/support/oauth_server.py): what the person reads before the browser opens, and each way a
sign-in is refused (with its code), keeping nothing."""

from __future__ import annotations

import asyncio
import socket
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.oauth_server import OAuthServer, follows
from tools.mcp.oauth.errors import SignInProblem
from tools.mcp.oauth.flow import SignedIn, sign_in
from tools.mcp.oauth.summary import SignInSummary


@pytest.fixture
def server() -> Any:
    with OAuthServer() as running:
        yield running


def signing(url: str, **how: Any) -> tuple[SignedIn | SignInProblem, list[str], list[Any]]:
    """Sign in; returns what came of it, the order things happened in, and the summaries."""
    happened: list[str] = []
    summaries: list[SignInSummary] = []
    browser = how.pop("browser", follows())
    confirmed = how.pop("confirmed", True)

    async def confirm(summary: SignInSummary) -> bool:
        happened.append("summary")
        summaries.append(summary)
        return bool(confirmed)

    async def opener(authorization_url: str) -> None:
        happened.append("browser")
        await browser(authorization_url)

    async def go() -> SignedIn | SignInProblem:
        try:
            return await sign_in(url, confirm=confirm, open_browser=opener, **how)
        except SignInProblem as exc:
            return exc

    return asyncio.run(go()), happened, summaries


def test_signing_in_shows_the_summary_then_the_browser_and_lists_the_tools(
    server: OAuthServer,
) -> None:
    browser = follows()
    signed, happened, summaries = signing(server.url, scopes=["notes.read"], browser=browser)

    assert isinstance(signed, SignedIn)
    assert happened == ["summary", "browser"]  # nothing opened before the person read it
    assert summaries == [
        SignInSummary(
            server=server.url, auth_host=f"127.0.0.1:{server.port}", scopes=["notes.read"]
        )
    ]
    assert server.authorized_scopes == [["notes.read"]]  # the person's scopes, not the server's
    [opened] = browser.opened
    query = parse_qs(urlsplit(opened).query)
    redirect = urlsplit(query["redirect_uri"][0])
    assert (redirect.scheme, redirect.hostname, redirect.path) == ("http", "127.0.0.1", "/callback")
    assert redirect.port != server.port and query["code_challenge_method"] == ["S256"]
    assert [t.name for t in signed.tools] == ["echo", "add_note", "whoami"]
    record = signed.record
    assert record is not None and record.tokens is not None
    assert record.tokens["access_token"] in server.issued
    assert record.expires_at is not None and record.auth_server is not None
    assert record.auth_server["revocation_endpoint"] == f"{server.base}/revoke"
    # The listener is closed once the code came back.
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", redirect.port), 1):
        pass


def test_a_person_who_does_not_go_on_opens_nothing(server: OAuthServer) -> None:
    signed, happened, _ = signing(server.url, confirmed=False)

    assert isinstance(signed, SignInProblem) and signed.code == "not_confirmed"
    assert happened == ["summary"] and server.issued == []


def test_a_forged_state_is_refused(server: OAuthServer) -> None:
    signed, _, _ = signing(server.url, browser=follows(tamper_state=True))

    assert isinstance(signed, SignInProblem) and signed.code == "state_mismatch"
    assert signed.message.startswith("The answer from the sign-in page did not match")
    assert server.issued == []  # the code was never exchanged


def test_a_registration_that_sends_the_code_elsewhere_is_refused(server: OAuthServer) -> None:
    server.register_redirect = "https://collector.example.test/callback"

    signed, happened, _ = signing(server.url)

    assert isinstance(signed, SignInProblem) and signed.code == "redirect_off_loopback"
    assert "collector.example.test" in signed.message
    assert happened == []  # refused before anything was shown or opened


def test_a_plain_http_authorization_server_elsewhere_is_refused(server: OAuthServer) -> None:
    server.insecure_issuer = "http://auth.example.test/"

    signed, happened, _ = signing(server.url)

    assert isinstance(signed, SignInProblem) and signed.code == "insecure_auth_server"
    assert signed.message == (
        "The server names an authorization server that is not https (auth.example.test); "
        "Deskhand signs in only over https (or on this computer)."
    )
    assert happened == []


def test_an_abandoned_sign_in_gives_up_and_closes_the_listener(server: OAuthServer) -> None:
    opened: list[str] = []

    async def nobody(url: str) -> None:
        opened.append(url)  # the page opens, and the person walks away

    signed, _, _ = signing(server.url, browser=nobody, within=0.5)

    assert isinstance(signed, SignInProblem) and signed.code == "abandoned"
    assert signed.message == (
        "The sign-in was not finished in the browser within 0.5 seconds; nothing was added."
    )
    port = urlsplit(parse_qs(urlsplit(opened[0]).query)["redirect_uri"][0]).port
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), 1):
        pass


def test_a_url_that_is_not_an_mcp_server_or_not_http_is_refused(server: OAuthServer) -> None:
    elsewhere, _, _ = signing(f"{server.base}/not-here")
    ftp, _, _ = signing("ftp://127.0.0.1/mcp")

    assert isinstance(elsewhere, SignInProblem) and elsewhere.code == "not_mcp_server"
    assert isinstance(ftp, SignInProblem) and ftp.code == "bad_url"


def test_without_dynamic_registration_a_client_id_is_needed_and_used() -> None:
    with OAuthServer(dynamic_registration=False) as server:
        server.add_client("deskhand-by-hand", "s3cret-by-hand")
        first, _, _ = signing(server.url)
        given, _, _ = signing(
            server.url, client_id="deskhand-by-hand", client_secret="s3cret-by-hand"
        )

    assert isinstance(first, SignInProblem) and first.code == "needs_client_id"
    assert isinstance(given, SignedIn) and given.record is not None
    assert given.record.client_given and given.record.tokens is not None


def test_with_no_scopes_named_none_are_asked_and_the_server_chooses(
    server: OAuthServer,
) -> None:
    signed, _, summaries = signing(server.url)

    assert isinstance(signed, SignedIn)
    assert summaries[0].scopes == []  # the sheet says "the server's default"
    assert server.authorized_scopes == [[]]
