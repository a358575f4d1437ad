"""`deskhand mcp` as a real subprocess, driven by the `mcp` SDK's own client: the tools with
their annotations, a read that runs, and calls that would ask — asked through elicitation
when the client can, refused when it cannot, never silently run. The page server proves
whether anything reached the page. Only what can run here is listed (no screen tools without
a display, none turned off in Settings, no Mac tools off a Mac), the instructions say why, and
every refusal says what happened and what the person can change."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from mcp import Client, StdioServerParameters

from desktop.__main__ import parse_args
from tests.support import mcp_servers
from tests.support.desk import running_desk
from tests.support.deskhand_mcp import audit, data_dir, served, session, text
from tests.support.page_server import PageServer
from tests.support.x11 import Xvfb, xvfb_missing


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
            "Refused: the person said no when Deskhand asked about this action. Do not try it "
            "again in another way unless they ask; if they want it to run, they can allow it "
            "when asked, or set “Browser: navigate” to Always allow in Deskhand → Settings → "
            "Permissions. Their reason: no"
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
    assert result.is_error and text(result) == (
        "Refused: the person set “Browser: navigate” to Never in Deskhand → Settings → "
        "Permissions, so it did not run. Do not try it again in another way; tell them: they can "
        "change that rule there."
    )
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


# --- what is offered where: a display, a Mac, Settings ------------------------------------------

NO_DISPLAY = (
    "No screen tools (computer_*, screen): no graphical display was found (DISPLAY is not set); "
    "to change that, start Deskhand from a desktop session."
)
NOT_A_MAC = "No Mac app tools (macos, apps, tabs, app_command…): they need macOS, and this computer is not a Mac."
SCREEN_OFF = (
    "No screen tools (computer_*, screen): Screen control is off in Deskhand → Settings → "
    "Screen, where the person can turn it on."
)


def listing(params: StdioServerParameters, call: str = "computer_screenshot") -> Any:
    """What the server lists, its instructions, and what a call of `call` answers."""

    async def work(client: Client) -> tuple[list[str], str, mcp_types.CallToolResult]:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        answered = await client.call_tool(call, {"action": "windows"} if call == "screen" else {})
        return tools, client.instructions or "", answered

    return session(params, work)


def refused_here(why: str) -> str:
    return (
        f"Refused: this tool is not offered here. {why} Tell the person; it cannot run until "
        "they change that."
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="no DISPLAY means no display")
def test_without_a_display_no_screen_tool_is_listed_and_the_instructions_say_why(
    tmp_path: Path,
) -> None:
    tools, instructions, screenshot = listing(served(data_dir(tmp_path)))
    assert not [name for name in tools if name.startswith("computer_") or name == "screen"]
    assert "browser_navigate" in tools and "browser_javascript_exec" not in tools
    lines = instructions.splitlines()
    assert lines[1] == "Not offered here:"
    assert f"- {NO_DISPLAY}" in lines and f"- {NOT_A_MAC}" in lines
    assert (
        "- No browser_javascript_exec: “Run JavaScript” is off in Deskhand → Settings → Browser, "
        "where the person can turn it on."
    ) in lines
    assert screenshot.is_error and text(screenshot) == refused_here(NO_DISPLAY)
    assert audit(tmp_path / "data") == []  # refused before anything was described


@pytest.mark.skipif(xvfb_missing() is not None, reason="needs Xvfb")
def test_screen_tools_turned_off_in_settings_are_not_listed(tmp_path: Path) -> None:
    folder = data_dir(tmp_path, screen={"enabled": False})
    with Xvfb(800, 600) as server:
        tools, instructions, called = listing(
            served(folder, env={"DISPLAY": server.display}), call="screen"
        )
    assert not [name for name in tools if name.startswith("computer_") or name == "screen"]
    assert f"- {SCREEN_OFF}" in instructions.splitlines()
    assert called.is_error and text(called) == refused_here(SCREEN_OFF)


@pytest.mark.slow
def test_with_a_display_the_screen_is_offered_and_runs(tmp_path: Path) -> None:
    folder = data_dir(tmp_path)
    with running_desk() as desk:
        params = served(folder, "--permission-mode", "autonomous", env=desk.env())
        tools, instructions, windows = listing(params, call="screen")
    assert "computer_screenshot" in tools and "computer_left_click" in tools
    assert "screen" in tools
    assert "No screen tool" not in instructions and NOT_A_MAC in instructions
    assert not windows.is_error, text(windows)
    assert '"See target" — see_target.py' in text(windows)
    assert audit(folder) == [("screen", "windows", "allowed", "mode")]


@pytest.mark.skipif(xvfb_missing() is not None, reason="needs Xvfb")
def test_with_a_display_a_screen_call_no_one_can_approve_says_how_to_allow_it(
    tmp_path: Path,
) -> None:
    folder = data_dir(tmp_path)
    with Xvfb(800, 600) as server:
        tools, instructions, shot = listing(served(folder, env={"DISPLAY": server.display}))
    assert "computer_screenshot" in tools
    assert "screen" not in tools  # no accessibility bus here, and the instructions say so
    assert (
        "- No screen tool (other apps' elements by id): there is no desktop session bus "
        "(D-Bus), so other apps' buttons and fields cannot be read; to change that, start "
        "Deskhand from a desktop session."
    ) in instructions.splitlines()
    assert shot.is_error and text(shot) == (
        "This action needs the person's approval, and this MCP client cannot ask them. To allow "
        "it, open Deskhand → Settings → Permissions and set “Screen: screenshot” to Always "
        "allow, keep Deskhand's window open so it can ask, or start `deskhand mcp "
        "--permission-mode autonomous` (consequential actions still ask)."
    )


def test_a_tool_no_one_offers_is_unknown(tmp_path: Path) -> None:
    async def work(client: Client) -> mcp_types.CallToolResult:
        return await client.call_tool("teleport", {})

    result = session(served(data_dir(tmp_path)), work)
    assert result.is_error and text(result) == (
        "There is no tool with that name here. Use one of the tools listed."
    )


@pytest.mark.skipif(xvfb_missing() is not None, reason="needs Xvfb")
def test_a_tool_turned_off_while_serving_is_refused_with_why(tmp_path: Path) -> None:
    folder = data_dir(tmp_path)

    async def work(client: Client) -> tuple[list[str], mcp_types.CallToolResult, list[str]]:
        before = [tool.name for tool in (await client.list_tools()).tools]
        # The person turns Screen off in the window, which saves the settings file.
        settings = json.loads((folder / "settings.json").read_text())
        (folder / "settings.json").write_text(
            json.dumps({**settings, "screen": {"enabled": False}})
        )
        refused = await client.call_tool("computer_screenshot", {})
        after = [tool.name for tool in (await client.list_tools()).tools]
        return before, refused, after

    with Xvfb(800, 600) as server:
        before, refused, after = session(served(folder, env={"DISPLAY": server.display}), work)
    assert "computer_screenshot" in before and "computer_screenshot" not in after
    assert refused.is_error and text(refused) == (
        f"Refused: this tool cannot be used now. {SCREEN_OFF} Tell the person; it cannot run "
        "until they change that."
    )
    assert audit(folder) == []  # refused before it was described


def test_a_client_that_fails_to_ask_is_not_taken_for_the_persons_no(tmp_path: Path) -> None:
    folder = data_dir(tmp_path)

    async def broken(context: Any, params: Any) -> mcp_types.ElicitResult:
        raise RuntimeError("this client's form could not be shown")

    with PageServer() as pages:

        async def work(client: Client) -> mcp_types.CallToolResult:
            return await client.call_tool("browser_navigate", {"url": pages.url("form.html")})

        result = session(served(folder, "--permission-mode", "ask"), work, elicit=broken)
        assert result.is_error and pages.paths() == []
    assert text(result).startswith(
        "This action needs the person's approval, and this MCP client cannot ask them. To allow "
        "it, open Deskhand → Settings → Permissions and set “Browser: navigate” to Always allow"
    )
    assert audit(folder) == [("browser", "navigate", "denied", "mode")]
