"""`deskhand connector`, every command in text and in JSON (each answer checked against its
schema), against a local MCP server behind the SDK's server auth, with a stand-in browser as
`$BROWSER`; and each refusal with its code and exit status, adding nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.command import answers
from tests.support.answers import checked
from tests.support.oauth_server import OAuthServer
from tests.support.standin_browser import browser_command

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def server() -> Iterator[OAuthServer]:
    with OAuthServer() as running:
        yield running


class Connector:
    """`deskhand connector …` on one data dir, with the stand-in browser as `$BROWSER`."""

    def __init__(self, tmp_path: Path) -> None:
        self.data_dir = tmp_path / "data"
        self.opened = tmp_path / "opened.log"
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "BROWSER": browser_command(tmp_path),
            "STANDIN_BROWSER_LOG": str(self.opened),
        }
        self.env.pop("DISPLAY", None)  # `webbrowser` takes $BROWSER first either way
        self.said: list[str] = []  # every stdout and stderr, to look for tokens in

    def __call__(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "desktop", "connector", *args, "--data-dir", str(self.data_dir)],
            cwd=ROOT,
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=90,
        )
        self.said += [done.stdout, done.stderr]
        return done

    def json(self, *args: str, schema: str, **env: str) -> dict[str, Any]:
        done = self(*args, "--json", **env)
        assert done.returncode == 0, done.stderr
        return checked(done.stdout, schema)

    def browsed(self) -> list[str]:
        return self.opened.read_text().splitlines() if self.opened.exists() else []

    def expire_while_closed(self, server: OAuthServer) -> str:
        """The access token expired hours ago; returns the refresh token kept."""
        kept = self.data_dir / "mcp-sign-ins.json"
        records = json.loads(kept.read_text())
        records["notes"]["expires_at"] = time.time() - 3600
        kept.write_text(json.dumps(records))
        server.expire_access()
        return str(records["notes"]["tokens"]["refresh_token"])


def test_every_command_in_json(server: OAuthServer, tmp_path: Path) -> None:
    connector = Connector(tmp_path)

    added = connector.json(
        "add",
        "notes",
        "--url",
        server.url,
        "--scope",
        "notes.read",
        schema="deskhand.connector.add/1",
    )
    summary = connector.said[-1]
    listed = connector.json("list", schema="deskhand.connector.list/1")
    old_refresh = connector.expire_while_closed(server)
    tools = connector.json("tools", "notes", schema="deskhand.connector.tools/1")  # refreshes
    after_refresh = connector.json("list", schema="deskhand.connector.list/1")
    signed_out = connector.json("sign-out", "notes", schema="deskhand.connector.sign-out/1")
    out = connector.json("list", schema="deskhand.connector.list/1")
    again = connector.json("sign-in", "notes", schema="deskhand.connector.sign-in/1")
    removed = connector.json("remove", "notes", schema="deskhand.connector.remove/1")
    empty = connector.json("list", schema="deskhand.connector.list/1")

    row = added["connector"]
    assert {k: v for k, v in row.items() if k != "expires_at"} == {
        "name": "notes",
        "transport": "http",
        "url": server.url,
        "status": "signed_in",
        "signed_in": True,
        "tools": 3,
    }
    assert summary == (
        f"Signing in to {server.url}\n  authorization server: 127.0.0.1:{server.port}\n"
        "  scopes: notes.read\nOpening your browser to finish there…\n"
    )
    assert listed["connectors"] == [row]
    assert [t["name"] for t in tools["tools"]] == ["echo", "add_note", "whoami"]
    assert [t["read_only"] for t in tools["tools"]] == [True, False, True]
    assert server.refreshes == 1 and old_refresh not in server.authority.refresh
    [refreshed] = after_refresh["connectors"]
    assert refreshed["status"] == "signed_in" and refreshed["expires_at"] > row["expires_at"]
    assert signed_out == {
        "schema": "deskhand.connector.sign-out/1",
        "ok": True,
        "name": "notes",
        "revoked": True,
    }
    assert [(c["status"], c["signed_in"], c["expires_at"]) for c in out["connectors"]] == [
        ("sign_in", False, None)
    ]
    assert again["connector"]["status"] == "signed_in"
    assert (removed["name"], removed["revoked"]) == ("notes", True)
    assert empty["connectors"] == []
    # The browser opened twice (add, sign-in), never for the refresh, and always on the server.
    assert [url.startswith(f"{server.base}/authorize?") for url in connector.browsed()] == [
        True,
        True,
    ]
    logs = "".join(p.read_text() for p in (connector.data_dir / "logs").glob("*.log*"))
    for token in server.issued:
        assert all(token not in said for said in connector.said) and token not in logs


def test_every_command_in_text(server: OAuthServer, tmp_path: Path) -> None:
    connector = Connector(tmp_path)

    added = connector("add", "notes", "--url", server.url)
    listed = connector("list")
    tools = connector("tools", "notes")
    signed_out = connector("sign-out", "notes")
    out = connector("list")
    again = connector("sign-in", "notes")
    removed = connector("remove", "notes")
    empty = connector("list")

    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith(f"Added: notes  {server.url}  Signed in (token until ")
    assert added.stdout.endswith(", renewed on its own)  (3 tools)\n")
    assert "  scopes: (the server's default)\n" in added.stderr
    assert listed.stdout == added.stdout.removeprefix("Added: ")
    assert tools.stdout == (
        "echo      Say `text` back.\n"
        "add_note  Add a note to the notebook.\n"
        "whoami    A hostile server's tool: it answers with the bearer token it was sent.\n"
    )
    assert signed_out.stdout == "Signed out of notes (the server revoked its tokens).\n"
    assert out.stdout == f"notes  {server.url}  Sign in  (3 tools)\n"
    assert again.stdout.startswith(f"Signed in: notes  {server.url}  Signed in (token until ")
    assert removed.stdout == "Removed notes (the server revoked its tokens).\n"
    assert empty.stdout == "No connectors.\n"
    assert all(done.returncode == 0 for done in (listed, tools, signed_out, out, again, removed))


def refusal(done: subprocess.CompletedProcess[str], code: str) -> str:
    """The error object's message, after checking its code, its schema and the exit status."""
    answer = checked(done.stdout, "deskhand.error/1")
    assert answer["error"]["code"] == code, answer
    assert done.returncode == answers.exit_code(code)
    assert "Traceback" not in done.stderr
    return str(answer["error"]["message"])


def test_each_refusal_has_its_code_and_adds_nothing(server: OAuthServer, tmp_path: Path) -> None:
    connector = Connector(tmp_path)
    add = ("add", "notes", "--url", server.url, "--json")

    not_http = connector("add", "notes", "--url", "ftp://127.0.0.1/mcp", "--json")
    not_mcp = connector("add", "notes", "--url", f"{server.base}/nothing-here", "--json")
    forged = connector(*add, STANDIN_BROWSER_TAMPER="state")
    abandoned = connector(*add, "--timeout", "1", BROWSER="true")
    server.insecure_issuer = "http://auth.example.test/"
    insecure = connector(*add)
    server.insecure_issuer = None
    server.register_redirect = "https://collector.example.test/callback"
    elsewhere = connector(*add)
    unknown = connector("tools", "nothing", "--json")

    assert refusal(not_http, "bad_input").startswith("“ftp://127.0.0.1/mcp” is not a web address")
    assert refusal(not_mcp, "not_mcp_server") == (
        f"No MCP server answered at {server.base}/nothing-here. Check the URL (a Streamable "
        "HTTP endpoint, often ending in /mcp)."
    )
    assert refusal(forged, "state_mismatch").endswith(
        "(state mismatch); it was refused. Try again."
    )
    assert refusal(abandoned, "timeout") == (
        "The sign-in was not finished in the browser within 1 second; nothing was added."
    )
    assert "(auth.example.test)" in refusal(insecure, "insecure_auth_server")
    assert "(collector.example.test)" in refusal(elsewhere, "redirect_off_loopback")
    assert refusal(unknown, "not_found") == "There is no connector named “nothing”."
    assert not (connector.data_dir / "mcp.json").exists()
    assert not (connector.data_dir / "mcp-sign-ins.json").exists()
    assert server.notes == [] and len(connector.browsed()) == 1  # only the forged one's page
