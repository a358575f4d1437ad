"""MCP servers' tools in the one pipeline: the real agent, the scripted model server, real
MCP servers. Risk from trust, rules per tool, many tools behind the tool search, a lazy start,
Settings' saves starting and stopping servers, and a bad mcp.json that changes nothing."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.calls.contract import ToolUse as Use
from desktop.calls.permissions import Risk
from desktop.calls.sources.mcp.config import McpConfig
from desktop.calls.sources.mcp.source import DEFER_OVER, TOOL_SEARCH
from desktop.chat.events import AgentEvent, ToolFinished
from desktop.system.settings.permissions import Mode, Rule
from desktop.workspace import Workspace
from tests.support import mcp_servers
from tests.support.connectors import configure, running, turn
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.waiting import wait_until
from tools.mcp.spec import ServerState


def sent_results(server: ScriptedModelServer, request: int) -> list[dict[str, Any]]:
    return list(server.message_requests[request]["messages"][-1]["content"])


def test_an_untrusted_servers_tools_ask_and_say_what_the_server_claims(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    source = configure(workspace, {"everything": mcp_servers.everything()})
    workspace.live.set_mode(
        Mode.AUTONOMOUS
    )  # even here: consequential calls ask, and no one is here
    model_server.enqueue(
        tool_reply(ToolUse(name="mcp__everything__echo", input={"message": "hi"})),
        text_reply("It needs your approval."),
    )

    events = running(workspace, turn(workspace, "Echo hi"))

    tools = model_server.message_requests[0]["tools"]
    echo = next(t for t in tools if t.get("name") == "mcp__everything__echo")
    assert echo["description"] == "Echoes back the input string"
    assert echo["input_schema"]["properties"]["message"]["type"] == "string"
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.outcome == "denied" and finished.is_error
    call = asyncio.run(
        source.describe(Use(id="t", name="mcp__everything__echo", input={"message": "x"}), 1)
    )
    assert call.risk is Risk.CONSEQUENTIAL
    assert call.reason == "MCP server “everything”, not trusted; the server says it only reads"
    assert (call.tool, call.action) == ("mcp__everything", "echo")
    assert call.target is not None and call.target.endswith("mcp-server-everything stdio")
    [audit] = workspace.store.audit()
    assert (audit.tool, audit.action, audit.decision) == ("mcp__everything", "echo", "denied")


def test_a_trusted_servers_hints_set_the_risk_and_reads_run(
    workspace: Workspace, model_server: ScriptedModelServer, tmp_path: Path
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "todo.txt").write_text("buy milk\n")
    entry = {**mcp_servers.filesystem(folder), "trusted": True}
    source = configure(workspace, {"files": entry})
    model_server.enqueue(
        tool_reply(
            ToolUse(name="mcp__files__read_text_file", input={"path": str(folder / "todo.txt")})
        ),
        text_reply("It says buy milk."),
    )

    events = running(workspace, turn(workspace, "What's in todo.txt?"))

    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.outcome == "ok"
    [result] = sent_results(model_server, 1)
    assert result["content"][0]["text"] == "buy milk\n"
    write = asyncio.run(
        source.describe(
            Use(id="t", name="mcp__files__write_file", input={"path": "a", "content": "b"}), 1
        )
    )
    assert write.risk is Risk.CONSEQUENTIAL
    assert write.reason == "MCP server “files”, trusted; the server says it may delete or overwrite"
    groups = {group.tool: group for group in workspace.toolbox.action_groups()}
    actions = {a.name: a.risk for a in groups["mcp__files"].actions}
    assert actions["read_text_file"] is Risk.READ and actions["write_file"] is Risk.CONSEQUENTIAL
    assert groups["mcp__files"].title == "files (MCP)"


def test_a_rule_per_tool_lets_an_untrusted_tool_run(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    configure(workspace, {"everything": mcp_servers.everything()})
    workspace.live.set_rule("mcp__everything.get-sum^consequential", Rule.ALLOW)
    workspace.live.set_rule("mcp__everything.echo", Rule.NEVER)
    model_server.enqueue(
        tool_reply(
            ToolUse(name="mcp__everything__get-sum", input={"a": 2, "b": 40}),
            ToolUse(name="mcp__everything__echo", input={"message": "no"}),
        ),
        text_reply("42."),
    )

    events = running(workspace, turn(workspace, "Add 2 and 40"))

    outcomes = [e.outcome for e in events if isinstance(e, ToolFinished)]
    assert outcomes == ["ok", "blocked"]
    summed, echoed = sent_results(model_server, 1)
    assert summed["content"][0]["text"] == "The sum of 2 and 40 is 42."
    assert echoed["is_error"] is True


def test_many_tools_go_behind_the_tool_search(
    workspace: Workspace, model_server: ScriptedModelServer, tmp_path: Path
) -> None:
    source = configure(
        workspace, {"probe": mcp_servers.probe(tmp_path / "markers", tools=DEFER_OVER)}
    )
    model_server.enqueue(text_reply("Hello."))

    running(workspace, turn(workspace, "Hi"))

    tools = model_server.message_requests[0]["tools"]
    mcp_tools = [t for t in tools if t.get("name", "").startswith("mcp__probe__")]
    assert len(mcp_tools) == DEFER_OVER + 2  # tool_1..tool_30, wait, crash
    assert all(t["defer_loading"] is True for t in mcp_tools)
    search = tools[-1]
    assert {k: search[k] for k in TOOL_SEARCH} == TOOL_SEARCH
    assert "defer_loading" not in search and search["cache_control"] == {"type": "ephemeral"}
    others = [t for t in tools if not t.get("defer_loading") and t is not search]
    assert not any(t.get("name", "").startswith("mcp__") for t in others)  # the browser's
    assert source.status("probe").tools == DEFER_OVER + 2


def test_another_model_behind_a_compatible_server_gets_every_tool_whole(
    workspace: Workspace, model_server: ScriptedModelServer, tmp_path: Path
) -> None:
    configure(workspace, {"probe": mcp_servers.probe(tmp_path / "markers", tools=DEFER_OVER)})
    settings = workspace.settings.model_copy(deep=True)
    settings.model.model = "qwen3:8b"  # say, a local Ollama: no tool search there
    workspace.live.apply(settings)
    model_server.enqueue(text_reply("Hello."))

    running(workspace, turn(workspace, "Hi"))

    tools = model_server.message_requests[0]["tools"]
    assert sum(1 for t in tools if t.get("name", "").startswith("mcp__")) == DEFER_OVER + 2
    assert not any(t.get("defer_loading") or "tool_search" in t.get("type", "") for t in tools)


def test_few_tools_are_sent_whole(workspace: Workspace, model_server: ScriptedModelServer) -> None:
    configure(workspace, {"everything": mcp_servers.everything()})
    model_server.enqueue(text_reply("Hello."))

    running(workspace, turn(workspace, "Hi"))

    tools = model_server.message_requests[0]["tools"]
    assert not any(t.get("defer_loading") for t in tools)
    assert not any(t.get("type", "").startswith("tool_search") for t in tools)


def test_a_lazy_server_starts_on_its_first_call(
    workspace: Workspace, model_server: ScriptedModelServer, tmp_path: Path
) -> None:
    markers = tmp_path / "markers"
    source = configure(workspace, {"probe": mcp_servers.probe(markers, tools=1)})

    async def learn() -> None:  # a first run learns the server's tools
        assert source.status("probe").state is ServerState.READY

    running(workspace, learn)
    configure(workspace, {"probe": mcp_servers.probe(markers, tools=1)}, deskhandLazyStart=True)
    workspace.live.set_rule("mcp__probe.tool_1^consequential", Rule.ALLOW)
    model_server.enqueue(
        tool_reply(ToolUse(name="mcp__probe__tool_1", input={})), text_reply("Done.")
    )

    async def lazily() -> list[AgentEvent]:
        assert source.status("probe").state is ServerState.IDLE
        assert mcp_servers.running_with(str(markers)) == []
        events = await turn(workspace, "Use tool 1")()
        assert source.status("probe").state is ServerState.READY
        return events

    events = running(workspace, lazily)
    assert any(
        t.get("name") == "mcp__probe__tool_1" for t in model_server.message_requests[0]["tools"]
    )
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["ok"]
    assert sent_results(model_server, 1)[0]["content"][0]["text"] == "tool_1"


def test_saving_starts_stops_and_drops_servers(workspace: Workspace, tmp_path: Path) -> None:
    source = configure(workspace, {"one": mcp_servers.probe(tmp_path / "one")})
    two = mcp_servers.probe(tmp_path / "two", tools=2)

    async def work() -> None:
        assert source.status("one").state is ServerState.READY
        config = source.config.model_copy(deep=True)
        config.servers["two"] = McpConfig.model_validate({"mcpServers": {"two": two}}).servers[
            "two"
        ]
        config.servers["one"].disabled = True
        source.save(config)
        await wait_until(lambda: source.status("two").state is ServerState.READY, 20, "two")
        await wait_until(lambda: source.status("one").state is ServerState.OFF, 20, "one off")
        assert mcp_servers.running_with(str(tmp_path / "one")) == []
        names = [t["name"] for t in source.api_tools()]
        assert "mcp__two__tool_2" in names and not any(n.startswith("mcp__one") for n in names)
        del config.servers["two"]
        source.save(config)
        await wait_until(lambda: not mcp_servers.running_with(str(tmp_path / "two")), 20, "gone")
        assert source.api_tools() == []

    running(workspace, work)
    saved = json.loads(workspace.paths.mcp_config.read_text())
    assert saved == {
        "mcpServers": {"one": {**mcp_servers.probe(tmp_path / "one"), "disabled": True}}
    }


def test_a_failed_server_stays_failed_until_restarted(workspace: Workspace, tmp_path: Path) -> None:
    flag = tmp_path / "broken"
    flag.write_text("yes")
    script = (
        "import pathlib, runpy, sys; "
        f"flag = pathlib.Path({str(flag)!r}); "
        "flag.exists() and sys.exit('not configured yet'); "
        f"sys.argv = ['probe', {str(tmp_path / 'm')!r}]; "
        f"runpy.run_path({str(mcp_servers.PROBE)!r}, run_name='__main__')"
    )
    source = configure(workspace, {"flaky": {"command": sys.executable, "args": ["-c", script]}})

    async def work() -> None:
        status = source.status("flaky")
        assert status.state is ServerState.FAILED and status.stderr == "not configured yet"
        source.save(source.config.model_copy(update={"lazy_start": False}, deep=True))
        await asyncio.sleep(0.2)
        assert source.status("flaky").state is ServerState.FAILED  # a save is not a retry
        flag.unlink()
        source.restart("flaky")
        await wait_until(lambda: source.status("flaky").state is ServerState.READY, 20, "ready")

    running(workspace, work)


def test_a_bad_mcp_json_starts_nothing_and_is_not_touched(workspace: Workspace) -> None:
    path = workspace.paths.mcp_config
    text = '{"mcpServers": {"everything": ' + json.dumps(mcp_servers.everything())  # no closing
    path.write_text(text)
    source = workspace.toolbox.mcp
    assert source is not None

    async def work() -> None:
        assert source.read.problem is not None and "is not valid JSON" in source.read.problem
        assert source.connections == {} and source.api_tools() == []

    running(workspace, work)
    assert path.read_text() == text


@pytest.fixture(autouse=True)
def _no_leftovers(tmp_path: Path) -> Any:
    yield
    assert mcp_servers.running_with(str(tmp_path)) == []
