"""Connectors that sign in, in a workspace: added through the SDK's OAuth flow against a local
server behind the SDK's server auth (tests/support/oauth_server.py), their tools called through
the gate, refreshed after expiry in a new workspace, lapsed when the grant is revoked, signed
out with revocation; and their tokens reach nothing but the keychain or the private file."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.calls.own_places.guard import KEY_NOTICE, TOKEN_REMOVED
from desktop.calls.own_places.resolve import touches
from desktop.calls.sources.mcp import remote
from desktop.calls.sources.mcp.sign_ins import FILE_NAME
from desktop.calls.sources.mcp.source import SERVERS_WORD, SIGN_IN_AGAIN, McpSource
from desktop.chat.events import ToolFinished
from desktop.system.settings.permissions import Rule
from desktop.workspace import Workspace
from tests.support.connectors import running, turn
from tests.support.keychain import MemoryKeychain, installed
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.oauth_server import OAuthServer, follows
from tests.support.waiting import wait_until
from tools.mcp.oauth.errors import SignInProblem
from tools.mcp.oauth.summary import SignInSummary
from tools.outcome import Outcome


@pytest.fixture
def server() -> Iterator[OAuthServer]:
    with OAuthServer() as running_server:
        yield running_server


def mcp_source(ws: Workspace) -> McpSource:
    assert ws.toolbox.mcp is not None
    return ws.toolbox.mcp


def add_notes(ws: Workspace, server: OAuthServer, **how: Any) -> remote.ConnectorRow:
    async def confirm(summary: SignInSummary) -> bool:
        return True

    how.setdefault("open_browser", follows())
    return asyncio.run(
        remote.add(mcp_source(ws), "notes", server.url, confirm=confirm, within=10, **how)
    )


def results(model_server: ScriptedModelServer, request: int) -> list[dict[str, Any]]:
    return list(model_server.message_requests[request]["messages"][-1]["content"])


def everything_written(data_dir: Path, but: Path) -> str:
    """Every byte Deskhand wrote under its data dir (the database and its journal, mcp.json,
    the caches, the logs), but one file."""
    return "".join(
        path.read_bytes().decode("latin-1")
        for path in data_dir.rglob("*")
        if path.is_file() and path != but
    )


def test_a_signed_in_connectors_tool_runs_through_the_gate_and_its_tokens_reach_nothing(
    workspace: Workspace,
    model_server: ScriptedModelServer,
    server: OAuthServer,
    data_dir: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level("DEBUG")
    row = add_notes(workspace, server, scopes=["notes.read", "notes.write"])
    workspace.live.set_rule("mcp__notes.add_note^consequential", Rule.ALLOW)
    model_server.enqueue(
        tool_reply(ToolUse(name="mcp__notes__add_note", input={"text": "buy milk"})),
        text_reply("Added."),
    )

    events = running(workspace, turn(workspace, "Note: buy milk"))

    assert (row.status, row.signed_in, row.tools, row.words[:9]) == (
        "signed_in",
        True,
        3,
        "Signed in",
    )
    assert json.loads((data_dir / "mcp.json").read_text()) == {
        "mcpServers": {
            "notes": {"url": server.url, "oauth": True, "scopes": ["notes.read", "notes.write"]}
        }
    }
    assert server.notes == ["buy milk"]  # it ran, once the gate allowed it
    [result] = results(model_server, 1)
    assert result["content"] == [{"type": "text", "text": "Note 1 added."}]
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.effect == Outcome(kind="unconfirmed", note=SERVERS_WORD.format(server="notes"))
    assert [(a.tool, a.action, a.decision) for a in workspace.store.audit()] == [
        ("mcp__notes", "add_note", "allowed")
    ]
    kept = data_dir / FILE_NAME
    assert kept.stat().st_mode & 0o777 == 0o600
    assert [t.place for t in touches({"path": str(kept)}, [])] == ["connector sign-ins"]
    written = everything_written(data_dir, but=kept)
    sent = json.dumps(model_server.message_requests)
    assert server.issued  # an access and a refresh token
    for token in server.issued:
        assert token in kept.read_text()  # kept where they belong...
        assert token not in written and token not in sent and token not in caplog.text


def test_a_server_that_echoes_its_token_back_cannot_pass_it_on(
    workspace: Workspace, model_server: ScriptedModelServer, server: OAuthServer, data_dir: Path
) -> None:
    add_notes(workspace, server)
    workspace.live.set_rule("mcp__notes.whoami^consequential", Rule.ALLOW)
    model_server.enqueue(
        tool_reply(ToolUse(name="mcp__notes__whoami", input={})), text_reply("Done.")
    )

    events = running(workspace, turn(workspace, "Who am I?"))

    [result] = results(model_server, 1)
    assert result["content"] == [{"type": "text", "text": f"You called with {TOKEN_REMOVED}."}]
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert KEY_NOTICE in finished.notices
    written = everything_written(data_dir, but=data_dir / FILE_NAME)
    for token in server.issued:
        assert token not in json.dumps(model_server.message_requests) and token not in written


def test_a_token_that_expired_while_closed_is_refreshed_without_a_browser(
    workspace: Workspace, model_server: ScriptedModelServer, server: OAuthServer, data_dir: Path
) -> None:
    browser = follows()
    add_notes(workspace, server, open_browser=browser)
    workspace.store.close()
    kept = data_dir / FILE_NAME
    records = json.loads(kept.read_text())
    old_refresh = records["notes"]["tokens"]["refresh_token"]
    records["notes"]["expires_at"] = time.time() - 3600  # closed for hours
    kept.write_text(json.dumps(records))
    server.expire_access()
    again = Workspace.open(data_dir)  # a new start: nothing in memory but what was kept
    again.live.set_rule("mcp__notes.echo^consequential", Rule.ALLOW)
    model_server.enqueue(
        tool_reply(ToolUse(name="mcp__notes__echo", input={"text": "hi"})), text_reply("Hi.")
    )

    running(again, turn(again, "Say hi"))

    [result] = results(model_server, 1)
    assert result["content"] == [{"type": "text", "text": "echo: hi"}]
    assert server.refreshes == 1 and len(browser.opened) == 1  # the sign-in's only
    record = json.loads(kept.read_text())["notes"]
    assert record["tokens"]["refresh_token"] != old_refresh  # rotated, and the new one kept
    assert old_refresh not in server.authority.refresh
    assert record["expires_at"] > time.time() + 3000
    [row] = remote.rows(mcp_source(again))
    assert row.status == "signed_in" and row.expires_at == record["expires_at"]
    again.store.close()


def test_a_revoked_grant_says_sign_in_again_and_its_calls_are_refused_by_name(
    workspace: Workspace, model_server: ScriptedModelServer, server: OAuthServer
) -> None:
    browser = follows()
    add_notes(workspace, server, open_browser=browser)
    workspace.live.set_rule("mcp__notes.echo^consequential", Rule.ALLOW)
    model_server.enqueue(
        tool_reply(ToolUse(name="mcp__notes__echo", input={"text": "hi"})),
        text_reply("It needs a sign-in."),
    )

    async def revoked_then_asked() -> Any:
        server.revoke_all()  # on the server's side, while Deskhand runs
        return await turn(workspace, "Say hi")()

    events = running(workspace, revoked_then_asked)

    [result] = results(model_server, 1)
    assert result["is_error"] is True
    assert result["content"] == [{"type": "text", "text": SIGN_IN_AGAIN.format(server="notes")}]
    assert "Traceback" not in json.dumps(result)
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.is_error
    [row] = remote.rows(mcp_source(workspace))
    assert (row.status, row.signed_in, row.words) == ("sign_in_again", False, "Sign in again")
    assert len(browser.opened) == 1  # no browser opened on its own


def test_signing_out_revokes_and_forgets_and_removing_takes_it_away(
    workspace: Workspace, server: OAuthServer, data_dir: Path
) -> None:
    add_notes(workspace, server)
    source = mcp_source(workspace)
    record = source.sign_ins.load("notes")
    assert record is not None and record.tokens is not None

    revoked = asyncio.run(remote.sign_out(source, "notes"))

    assert revoked is True
    tokens = record.tokens
    assert tokens["refresh_token"] in server.revoked  # the revocation reached the server
    assert tokens["refresh_token"] not in server.authority.refresh
    assert tokens["access_token"] not in server.authority.access
    assert "notes" not in json.loads((data_dir / FILE_NAME).read_text())
    [row] = remote.rows(source)
    assert (row.status, row.words) == ("sign_in", "Sign in")  # still there, to sign in again
    assert asyncio.run(remote.remove(source, "notes")) is False  # nothing left to revoke
    assert json.loads((data_dir / "mcp.json").read_text()) == {"mcpServers": {}}
    assert not source.approvals.knows("notes")


def test_a_failed_sign_in_adds_nothing(
    workspace: Workspace, server: OAuthServer, data_dir: Path
) -> None:
    with pytest.raises(SignInProblem) as refused:
        add_notes(workspace, server, open_browser=follows(tamper_state=True))

    assert refused.value.code == "state_mismatch"
    assert not (data_dir / "mcp.json").exists() and not (data_dir / FILE_NAME).exists()
    assert remote.rows(mcp_source(workspace)) == []
    assert not mcp_source(workspace).approvals.knows("notes")


def test_with_a_keychain_the_tokens_go_there_and_no_file_holds_them(
    workspace: Workspace, server: OAuthServer, data_dir: Path
) -> None:
    keychain = MemoryKeychain()
    with installed(keychain):
        add_notes(workspace, server)
        [row] = remote.rows(mcp_source(workspace))

    assert row.status == "signed_in"
    assert not (data_dir / FILE_NAME).exists()
    [(service, account)] = list(keychain.passwords)
    assert (
        service == "Deskhand" and account.startswith("mcp-sign-in:") and account.endswith(":notes")
    )
    written = everything_written(data_dir, but=data_dir / "none")
    for token in server.issued:
        assert token in keychain.passwords[(service, account)] and token not in written
    assert os.environ.get("PYTHON_KEYRING_BACKEND") == "keyring.backends.fail.Keyring"


def test_a_token_close_to_its_expiry_is_renewed_before_it_runs_out(
    workspace: Workspace, server: OAuthServer, data_dir: Path
) -> None:
    add_notes(workspace, server)
    kept = data_dir / FILE_NAME
    records = json.loads(kept.read_text())
    records["notes"]["expires_at"] = time.time() + 30  # still valid, inside the last minute
    kept.write_text(json.dumps(records))
    old_access = records["notes"]["tokens"]["access_token"]

    async def started() -> Any:
        source = McpSource(data_dir / "mcp.json", logs_dir=data_dir / "logs")
        await source.start()
        try:
            return source.connections["notes"].status
        finally:
            await source.close()

    status = asyncio.run(started())

    assert status.state.value == "ready"
    assert server.refreshes == 1  # renewed, though the server would still have taken it
    assert old_access in server.authority.access  # (the server does not revoke on refresh)
    assert json.loads(kept.read_text())["notes"]["tokens"]["access_token"] != old_access


def test_a_grant_revoked_while_closed_says_sign_in_again_at_the_next_start(
    workspace: Workspace, server: OAuthServer, data_dir: Path
) -> None:
    browser = follows()
    add_notes(workspace, server, open_browser=browser)
    kept = data_dir / FILE_NAME
    records = json.loads(kept.read_text())
    records["notes"]["expires_at"] = time.time() - 10
    kept.write_text(json.dumps(records))
    server.revoke_all()

    async def started() -> Any:
        source = McpSource(data_dir / "mcp.json", logs_dir=data_dir / "logs")
        await source.start()
        try:
            return source.connections["notes"].status, remote.rows(source)
        finally:
            await source.close()

    status, [row] = asyncio.run(started())

    assert (status.state.value, status.problem) == (
        "failed",
        "“notes” needs you to sign in again.",
    )
    assert (row.status, row.words) == ("sign_in_again", "Sign in again")
    assert len(browser.opened) == 1 and server.refreshes == 0


def test_a_connector_added_from_the_command_line_starts_in_the_running_app(
    workspace: Workspace, server: OAuthServer, data_dir: Path
) -> None:
    async def both() -> Any:
        app = McpSource(data_dir / "mcp.json", logs_dir=data_dir / "logs")
        await app.start()  # running, with no connector yet
        try:
            command_line = McpSource(data_dir / "mcp.json", logs_dir=data_dir / "logs")

            async def confirm(summary: SignInSummary) -> bool:
                return True

            await remote.add(
                command_line, "notes", server.url, confirm=confirm, open_browser=follows()
            )
            assert app.notice_file_change()
            await wait_until(lambda: "notes" in app.connections, what="the connection")
            connection = app.connections["notes"]
            await wait_until(lambda: connection.status.state.value == "ready", what="ready")
            return [t.name for t in connection.tools]
        finally:
            await app.close()

    assert asyncio.run(both()) == ["echo", "add_note", "whoami"]


def test_a_server_that_asks_for_no_sign_in_is_added_as_a_plain_url(
    workspace: Workspace, data_dir: Path
) -> None:
    browser = follows()
    with OAuthServer(auth=False) as open_server:
        row = add_notes(workspace, open_server, open_browser=browser)

    assert (row.status, row.signed_in, row.tools) == ("approved", None, 3)
    assert json.loads((data_dir / "mcp.json").read_text()) == {
        "mcpServers": {"notes": {"url": open_server.url}}
    }
    assert browser.opened == [] and not (data_dir / FILE_NAME).exists()


def test_tokens_go_only_to_the_server_they_were_issued_for(
    workspace: Workspace, server: OAuthServer, data_dir: Path
) -> None:
    from tests.support.mcp_servers import write_approved

    add_notes(workspace, server)
    with OAuthServer() as other:
        seen: list[str] = []
        load = other.authority.load_access_token

        async def spy(token: str) -> Any:
            seen.append(token)
            return await load(token)

        other.authority.load_access_token = spy  # type: ignore[method-assign]
        config = json.loads((data_dir / "mcp.json").read_text())
        config["mcpServers"]["notes"]["url"] = other.url  # moved by hand, and approved

        async def started() -> Any:
            source = McpSource(data_dir / "mcp.json", logs_dir=data_dir / "logs")
            write_approved(source, config)
            source.reload()
            await source.start()
            try:
                return remote.rows(source)
            finally:
                await source.close()

        [row] = asyncio.run(started())

    assert not set(seen) & set(server.issued)  # none of the first server's tokens went there
    assert (row.status, row.words) == ("sign_in_again", "Sign in again")
