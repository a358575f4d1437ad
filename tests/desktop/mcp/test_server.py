"""`deskhand mcp` as a real subprocess, driven by the `mcp` SDK's own client: the tools with
their annotations, a read that runs, and calls that would ask — asked through elicitation
when the client can, refused when it cannot, never silently run. The page server proves
whether anything reached the page."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any, TextIO

import mcp_types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from desktop.__main__ import parse_args
from tests.support import mcp_servers
from tests.support.page_server import PageServer

ROOT = Path(__file__).resolve().parents[3]
Elicit = Any


def data_dir(tmp_path: Path, browser: dict[str, Any] | None = None, **settings: Any) -> Path:
    folder = tmp_path / "data"
    folder.mkdir(exist_ok=True)
    browser = {"headless": True, "allow_hosts": "127.0.0.1", **(browser or {})}
    (folder / "settings.json").write_text(json.dumps({"browser": browser, **settings}))
    return folder


def served(folder: Path, *options: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "desktop", "--data-dir", str(folder), "mcp", *options],
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"},
    )


def session(
    params: StdioServerParameters,
    work: Any,
    *,
    mode: str = "legacy",
    elicit: Elicit = None,
    errlog: TextIO = sys.stderr,
) -> Any:
    async def go() -> Any:
        async with Client(
            stdio_client(params, errlog=errlog), mode=mode, elicitation_callback=elicit, cache=None
        ) as client:
            return await work(client)

    return asyncio.run(go())


def text(result: mcp_types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, mcp_types.TextContent))


def audit(folder: Path) -> list[tuple[str, str, str, str]]:
    with sqlite3.connect(folder / "deskhand.db") as db:
        rows = db.execute("SELECT tool, action, decision, decided_by FROM audit ORDER BY id")
        return [tuple(row) for row in rows]


def test_the_tools_are_listed_with_annotations_from_their_risk(tmp_path: Path) -> None:
    folder = data_dir(tmp_path, {"javascript_exec": True})
    markers = tmp_path / "markers"
    (folder / "mcp.json").write_text(
        json.dumps({"mcpServers": {"probe": mcp_servers.probe(markers)}})
    )

    async def work(client: Client) -> dict[str, mcp_types.Tool]:
        assert client.server_info is not None and client.server_info.name == "deskhand"
        return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = session(served(folder), work)
    navigate, read, run_js = (
        tools["browser_navigate"],
        tools["browser_get_page_text"],
        tools["browser_javascript_exec"],
    )
    assert navigate.annotations is not None and read.annotations is not None
    assert run_js.annotations is not None
    assert (navigate.annotations.read_only_hint, navigate.annotations.destructive_hint) == (
        False,
        False,
    )
    assert read.annotations.read_only_hint is True and read.annotations.destructive_hint is False
    assert run_js.annotations.destructive_hint is True
    assert navigate.annotations.open_world_hint is True
    assert navigate.input_schema["required"] == ["url"]
    assert navigate.description and navigate.description.startswith("Navigate to a URL")
    # Other MCP servers' tools are never served again, and they are not even started.
    assert not any(name.startswith("mcp__") for name in tools)
    assert not (markers / "environ.json").exists()


def test_a_read_runs_and_is_audited_like_in_the_window(tmp_path: Path) -> None:
    folder = data_dir(tmp_path)

    async def work(client: Client) -> mcp_types.CallToolResult:
        return await client.call_tool("browser_list_tabs", {})

    result = session(served(folder), work)
    assert not result.is_error and '"type": "browser_state"' in text(result)
    assert audit(folder) == [("browser", "list_tabs", "allowed", "mode")]


def test_a_consequential_call_with_no_one_to_ask_is_refused(tmp_path: Path) -> None:
    folder = data_dir(tmp_path, {"javascript_exec": True})
    with PageServer() as pages:

        async def work(client: Client) -> list[mcp_types.CallToolResult]:
            opened = await client.call_tool("browser_navigate", {"url": pages.url("form.html")})
            script = f"fetch({pages.url('leak')!r})"
            ran = await client.call_tool("browser_javascript_exec", {"text": script})
            return [opened, ran]

        opened, ran = session(served(folder, "--permission-mode", "autonomous"), work)
        assert not opened.is_error  # a change, and autonomous: it runs
        assert ran.is_error
        assert text(ran).startswith(
            "This action needs the person's approval, and this MCP client cannot ask them."
        )
        assert "Settings → Permissions" in text(ran)
        assert "/leak" not in pages.paths()  # nothing reached the page
    assert audit(folder)[-1] == ("browser", "javascript_exec", "denied", "mode")


def test_elicitation_asks_the_person_with_what_will_run(tmp_path: Path) -> None:
    folder = data_dir(tmp_path)
    asked: list[str] = []

    async def answer(context: Any, params: Any) -> mcp_types.ElicitResult:
        asked.append(params.message)
        allow = "allowed.html" in params.message
        return mcp_types.ElicitResult(action="accept", content={"allow": allow, "reason": "no"})

    with PageServer() as pages:

        async def work(client: Client) -> list[mcp_types.CallToolResult]:
            yes = await client.call_tool("browser_navigate", {"url": pages.url("allowed.html")})
            no = await client.call_tool("browser_navigate", {"url": pages.url("refused.html")})
            return [yes, no]

        yes, no = session(served(folder, "--permission-mode", "ask"), work, elicit=answer)
        assert not yes.is_error and "/allowed.html" in pages.paths()
        assert no.is_error and "/refused.html" not in pages.paths()
        assert text(no) == (
            "The person denied this action. Do not try it again in another way unless they ask. "
            "Their reason: no"
        )
    message = asked[0]
    assert message.splitlines()[:3] == [
        "Deskhand asks before this action runs.",
        "Browser: navigate",
        f"Open {pages.url('allowed.html')}",
    ]
    assert f"Target: {pages.url('allowed.html')}" in message
    assert f'"url": "{pages.url("allowed.html")}"' in message
    assert [row[2:] for row in audit(folder)] == [("allowed", "person"), ("denied", "person")]


def test_on_a_2026_connection_the_question_comes_before_anything_runs(tmp_path: Path) -> None:
    folder = data_dir(tmp_path)
    asked: list[str] = []

    async def answer(context: Any, params: Any) -> mcp_types.ElicitResult:
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"allow": True})

    with PageServer() as pages:

        async def work(client: Client) -> mcp_types.CallToolResult:
            assert client.protocol_version == "2026-07-28"
            return await client.call_tool("browser_navigate", {"url": pages.url("form.html")})

        result = session(served(folder), work, mode="auto", elicit=answer)
        assert not result.is_error and "/form.html" in pages.paths()
    assert len(asked) == 1 and "Browser: navigate" in asked[0]
    assert audit(folder) == [("browser", "navigate", "allowed", "person")]


def test_a_declined_or_default_answer_is_a_no(tmp_path: Path) -> None:
    folder = data_dir(tmp_path)
    answers = iter(
        [
            mcp_types.ElicitResult(action="decline"),
            mcp_types.ElicitResult(action="accept", content={}),  # accepted the defaults
        ]
    )

    async def answer(context: Any, params: Any) -> mcp_types.ElicitResult:
        return next(answers)

    with PageServer() as pages:

        async def work(client: Client) -> list[bool]:
            results = []
            for _ in range(2):
                result = await client.call_tool("browser_navigate", {"url": pages.url("form.html")})
                results.append(result.is_error)
            return results

        assert session(served(folder), work, elicit=answer) == [True, True]
        assert pages.paths() == []


def test_a_never_rule_refuses_before_anything_is_asked(tmp_path: Path) -> None:
    folder = data_dir(tmp_path, permissions={"rules": {"browser.navigate": "never"}})

    async def answer(context: Any, params: Any) -> mcp_types.ElicitResult:
        raise AssertionError("a Never rule is not a question")

    async def work(client: Client) -> mcp_types.CallToolResult:
        return await client.call_tool("browser_navigate", {"url": "https://example.com"})

    result = session(served(folder), work, elicit=answer)
    assert result.is_error and "blocked by a rule the person set (Never)" in text(result)
    assert audit(folder) == [("browser", "navigate", "denied", "rule")]


def test_help_shows_a_claude_desktop_entry(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["mcp", "--help"])
    shown = capsys.readouterr().out
    entry = json.loads(shown[shown.index('{\n  "mcpServers"') :])
    server = entry["mcpServers"]["deskhand"]
    assert server["args"][-1] == "mcp"
    assert os.path.exists(server["command"])
    assert "--permission-mode" in shown and "--data-dir" in shown
