"""`deskhand mcp`'s results carry the same `Effect:` text the model reads in the window: the
server, in process, with the `mcp` SDK's own client, a tool that reads back what it did, the
gate and the audit."""

from __future__ import annotations

import asyncio

import mcp_types
from mcp import Client

from desktop.calls.sources.function_tools import FunctionTools
from desktop.mcp.offer import offered_tools
from desktop.mcp.server import RunningCalls, build_server
from desktop.system.settings.permissions import Mode
from desktop.workspace import Workspace
from tests.support.sample_tools import FieldTool
from tools.base import ToolRegistry


def text(result: mcp_types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, mcp_types.TextContent))


def test_a_result_carries_the_effect_lines_and_the_audit_keeps_them(
    workspace: Workspace,
) -> None:
    field = FieldTool(strip_digits=True)
    workspace.live.set_mode(Mode.AUTONOMOUS)
    source = FunctionTools(ToolRegistry([field]))
    calls = RunningCalls(workspace, offered_tools([source]))

    async def go() -> list[mcp_types.CallToolResult]:
        async with Client(build_server(calls), mode="legacy", cache=None) as client:
            first = await client.call_tool("field", {"text": "A1B"})
            again = await client.call_tool("field", {"text": "A1B"})
            return [first, again]

    first, again = asyncio.run(go())

    assert field.value == "AB"
    assert not first.is_error and text(first) == (
        'Typed.\nEffect:\n~ textbox "Name": "" → "AB"\nThe field holds "AB", not the text typed.'
    )
    assert text(again) == "Typed.\nEffect: none: nothing on the page changed."
    rows = list(reversed(workspace.store.audit()))
    assert [(row.tool, row.effect) for row in rows] == [
        ("field", "differs"),
        ("field", "no_effect"),
    ]
