"""`deskhand mcp` keeps Deskhand's own places too: a call naming one is refused before
anything runs, an API key in a result never reaches the client, and permission settings
changed outside Deskhand are ignored with a line on stderr."""

from __future__ import annotations

import json
import os
from pathlib import Path

import mcp_types
from mcp import Client

from desktop.calls.own_places.guard import KEY_REMOVED, OWN_PLACE
from desktop.mcp.server import SESSION
from tests.support.deskhand_mcp import audit, data_dir, served, session, text
from tests.support.page_server import PageServer

KEY = "sk-ant-api03-served-secret-9876543210"


def test_the_key_never_reaches_a_client_and_own_places_are_refused(tmp_path: Path) -> None:
    folder = data_dir(tmp_path, permissions={"mode": "autonomous"})
    params = served(folder)
    params.env = {**(params.env or {}), "ANTHROPIC_API_KEY": KEY}

    with PageServer(sentinel=KEY) as pages:

        async def work(client: Client) -> list[mcp_types.CallToolResult]:
            opened = await client.call_tool("browser_navigate", {"url": pages.url("pasted.html")})
            read = await client.call_tool("browser_get_page_text", {})
            own = await client.call_tool(
                "browser_navigate", {"url": (folder / "settings.json").as_uri()}
            )
            return [opened, read, own]

        opened, read, own = session(params, work)

    assert not read.is_error, text(read)
    assert KEY not in text(opened) + text(read)
    assert f"Things to keep: {KEY_REMOVED}" in text(read)
    assert own.is_error and text(own) == OWN_PLACE
    assert ("browser", "navigate", "denied", "rule") in audit(folder)
    assert SESSION == 0


def test_settings_changed_outside_are_ignored_and_said_on_stderr(tmp_path: Path) -> None:
    folder = data_dir(tmp_path, {"javascript_exec": True})

    async def first(client: Client) -> None:  # the first start adopts and signs the file
        await client.list_tools()

    session(served(folder), first)
    data = json.loads((folder / "settings.json").read_text())
    data["permissions"]["rules"] = {"browser.javascript_exec^consequential": "allow"}
    (folder / "settings.json").write_text(json.dumps(data))
    errors = tmp_path / "stderr.txt"

    with PageServer() as pages, errors.open("w") as errlog:

        async def work(client: Client) -> mcp_types.CallToolResult:
            await client.call_tool("browser_navigate", {"url": pages.url("form.html")})
            return await client.call_tool("browser_javascript_exec", {"script": "1 + 1"})

        result = session(served(folder), work, errlog=errlog)

    assert result.is_error  # it needs an approval no one can give: the rule is not in force
    said = errors.read_text()
    assert "permission settings were changed outside Deskhand" in said
    assert "Rule “browser.javascript_exec” up to consequential: Always allow (added)" in said
    assert os.path.exists(folder / "permissions.key")
