"""`deskhand mcp`'s `run_routine`: a real `deskhand mcp` process, driven by the `mcp` SDK's own
client, runs a routine saved from a real finished chat. The call is asked about through the
app's command-line socket, as every `deskhand mcp` call that needs the person is (the app's
approval queue answers as the person at the window would); once allowed, the app runs the
routine in its chat "▶ Greet" and the client gets the run's report. A "no" runs nothing."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from pathlib import Path

import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from desktop.calls.approvals import ApprovalRequest
from desktop.calls.permissions import Answer
from desktop.workspace import Workspace
from tests.support.answers import checked
from tests.support.model_server import ScriptedModelServer, text_reply
from tests.support.routine_chat import ROOT, desk, deskhand, record, serving

CLIENT = mcp_types.Implementation(name="claude-ai", title="Claude Desktop", version="1.0")
CALL_LIMIT = 120.0


def served(data_dir: Path) -> StdioServerParameters:
    """`deskhand mcp` on the app's data dir; its client cannot ask (no elicitation)."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "desktop", "--data-dir", str(data_dir), "mcp"],
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"},
    )


def text(result: mcp_types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, mcp_types.TextContent))


def audited(folder: Path, tool: str) -> list[tuple[str, str, str, str]]:
    with sqlite3.connect(folder / "deskhand.db") as db:
        rows = db.execute(
            "SELECT tool, action, decision, decided_by FROM audit WHERE tool = ? ORDER BY id",
            (tool,),
        )
        return [tuple(row) for row in rows]


def test_an_mcp_client_runs_a_routine_once_the_person_allows_it(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    tools = desk(workspace)
    root = workspace.paths.root
    asked: list[ApprovalRequest] = []
    answers = [True, False, True]

    def person(request: ApprovalRequest) -> None:  # the window's sheet, answered
        asked.append(request)
        request.answer(Answer(allow=answers.pop(0)))

    async def go() -> None:
        await record(workspace, model_server)
        await workspace.agent.close()
        made = await deskhand(root, "save", "--name", "Greet", "--param", "who=Ada")
        assert made.code == 0, made
        workspace.approvals.subscribe(person)
        recorded = len(model_server.message_requests)
        async with serving(workspace):
            params = served(root)
            async with Client(stdio_client(params), client_info=CLIENT, cache=None) as client:
                listed = {tool.name: tool for tool in (await client.list_tools()).tools}
                tool = listed["run_routine"]
                assert tool.annotations is not None and tool.annotations.destructive_hint is True
                assert tool.input_schema["required"] == ["name"]
                assert "run_routine" in (client.instructions or "")

                model_server.enqueue(text_reply("Typed Grace."))
                call = client.call_tool(
                    "run_routine", {"name": "Greet", "params": {"who": "Grace"}}
                )
                ran = await asyncio.wait_for(call, CALL_LIMIT)
                assert not ran.is_error, text(ran)
                report = checked(text(ran), "deskhand.routine.run/1")
                assert (report["status"], report["replayed"], report["model_requests"]) == (
                    "done",
                    2,
                    1,
                )
                assert report["answer"] == "Typed Grace."
                assert report["steps"][0]["effect"] == ['~ textbox "Name": "Ada" → "Grace"']
                assert tools.field.value == "Grace"
                assert len(model_server.message_requests) == recorded + 1

                refused = await asyncio.wait_for(
                    client.call_tool("run_routine", {"name": "Greet", "params": {"who": "Lin"}}),
                    CALL_LIMIT,
                )
                assert refused.is_error and text(refused).startswith(
                    "Refused: the person said no when Deskhand asked about this action."
                )
                assert tools.field.value == "Grace"  # nothing ran

                unknown = await asyncio.wait_for(
                    client.call_tool("run_routine", {"name": "Nope"}), CALL_LIMIT
                )
                assert unknown.is_error
                assert text(unknown) == (
                    "The routine did not run: There is no routine named “Nope”. `deskhand "
                    "routine list` names them."
                )
        assert [(request.asker, request.call.summary) for request in asked] == [
            ("An MCP client (Claude Desktop)", "Run the routine “Greet” with who = “Grace”"),
            ("An MCP client (Claude Desktop)", "Run the routine “Greet” with who = “Lin”"),
            ("An MCP client (Claude Desktop)", "Run the routine “Nope”"),
        ]
        assert json.loads(json.dumps(asked[0].call.input)) == {
            "name": "Greet",
            "params": {"who": "Grace"},
        }
        runs = [s for s in workspace.store.sessions() if s.title == "▶ Greet"]
        assert len(runs) == 1  # only the allowed call ran
        [run] = workspace.routines.runs("Greet")
        assert (run.trigger, run.status, run.chat_id) == ("mcp", "done", runs[0].id)
        assert audited(root, "run_routine") == [
            ("run_routine", "run", "allowed", "person"),
            ("run_routine", "run", "denied", "person"),
            ("run_routine", "run", "allowed", "person"),
        ]

    asyncio.run(go())
