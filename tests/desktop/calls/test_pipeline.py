"""The one tool pipeline: unusable input, unknown tools, Never before any work, schema tools."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.chat.events import ToolFinished, ToolStarted, TurnFailed, TurnFinished
from desktop.system.settings.permissions import Mode, Rule
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sample_tools import NotebookTool
from tests.support.turns import turn
from tools.base import (
    BAD_INPUT,
    NOT_AN_OBJECT,
    DuplicateTool,
    RunContext,
    SchemaTool,
    ToolRegistry,
    ToolResult,
)


def results(server: ScriptedModelServer, request: int) -> list[dict[str, Any]]:
    return list(server.message_requests[request]["messages"][-1]["content"])


@pytest.mark.parametrize("bad_input", [["milk"], "milk", None])
def test_a_call_whose_input_is_not_an_object_is_an_error_the_model_reads(
    workspace: Workspace, model_server: ScriptedModelServer, bad_input: object
) -> None:
    notebook = NotebookTool()
    workspace.registry.add(notebook)
    workspace.live.set_mode(Mode.AUTONOMOUS)
    model_server.enqueue(
        tool_reply(
            ToolUse(name="notebook", input=bad_input),
            ToolUse(name="notebook", input={"text": "eggs"}),
            text="Writing both.",
        ),
        text_reply("One of them went in."),
    )

    events = turn(workspace, "Note milk and eggs")

    assert notebook.lines == ["eggs"]  # the rest of the reply still ran
    first, second = results(model_server, 1)
    assert first["is_error"] is True and first["content"][0]["text"] == NOT_AN_OBJECT
    assert not second.get("is_error")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [(e.outcome, e.summary) for e in finished] == [
        ("error", NOT_AN_OBJECT),
        ("ok", "Wrote line 1."),
    ]
    assert [e.label for e in events if isinstance(e, ToolStarted)] == [
        "Notebook: notebook",
        "Notebook: write",
    ]
    assert isinstance(events[-1], TurnFinished)
    assert not any(isinstance(e, TurnFailed) for e in events)


def test_an_unknown_tool_and_bad_fields_are_answered_and_the_turn_goes_on(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    workspace.registry.add(NotebookTool())
    model_server.enqueue(
        tool_reply(
            ToolUse(name="teleport", input={"to": "Mars"}),
            ToolUse(name="notebook", input={"txet": "typo"}),
        ),
        text_reply("Neither worked."),
    )
    events = turn(workspace, "Go")
    unknown, typo = results(model_server, 1)
    assert unknown["is_error"] and "no tool with that name" in unknown["content"][0]["text"]
    assert typo["is_error"] and typo["content"][0]["text"] == BAD_INPUT
    started = [e for e in events if isinstance(e, ToolStarted)]
    assert (started[0].label, started[0].summary) == ("teleport", '{"to": "Mars"}')
    assert isinstance(events[-1], TurnFinished)


class PreparingNotebook(NotebookTool):
    """A notebook that looks something up before the sheet (as the tabs tool lists tabs)."""

    def __init__(self) -> None:
        super().__init__()
        self.prepared = 0

    async def prepare(self, call: Any) -> Any:
        self.prepared += 1
        return call


def test_a_never_rule_refuses_before_any_preparation_runs(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    notebook = PreparingNotebook()
    workspace.registry.add(notebook)
    workspace.live.set_rule("notebook.write", Rule.NEVER)
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "x"})), text_reply("Blocked.")
    )
    events = turn(workspace, "Write x")
    assert notebook.prepared == 0 and notebook.lines == []
    [result] = results(model_server, 1)
    assert result["is_error"] and "Never" in result["content"][0]["text"]
    assert [e.outcome for e in events if isinstance(e, ToolFinished)] == ["blocked"]
    [audit] = workspace.store.audit()
    assert (audit.decision, audit.decided_by, audit.outcome) == ("denied", "rule", "not run")


class Thermostat(SchemaTool):
    """A tool whose schema arrives as data (as an MCP server's would)."""

    def __init__(self) -> None:
        super().__init__(
            name="thermostat",
            title="Thermostat",
            description="Set the temperature.",
            schema={
                "type": "object",
                "properties": {"celsius": {"type": "number", "minimum": 5, "maximum": 30}},
                "required": ["celsius"],
                "additionalProperties": False,
            },
        )
        self.set_to: list[float] = []

    async def run(self, call: dict[str, Any], ctx: RunContext) -> ToolResult:
        self.set_to.append(call["celsius"])
        return ToolResult(text=f"Set to {call['celsius']} °C.")


def test_a_schema_tool_is_offered_as_is_and_checks_its_input(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    thermostat = Thermostat()
    workspace.registry.add(thermostat)
    workspace.live.set_mode(Mode.AUTONOMOUS)  # tools from outside are consequential: set a rule
    workspace.live.set_rule("thermostat^consequential", Rule.ALLOW)
    model_server.enqueue(
        tool_reply(
            ToolUse(name="thermostat", input={"celsius": 90}),
            ToolUse(name="thermostat", input={"celsius": 21}),
        ),
        text_reply("Done."),
    )
    turn(workspace, "Warmer")
    tools = model_server.message_requests[0]["tools"]
    [offered] = [t for t in tools if t.get("name") == "thermostat"]
    assert offered["input_schema"]["required"] == ["celsius"]
    too_hot, fine = results(model_server, 1)
    assert too_hot["is_error"] and too_hot["content"][0]["text"] == BAD_INPUT
    assert not fine.get("is_error") and thermostat.set_to == [21]


def test_a_second_tool_with_a_taken_name_is_refused() -> None:
    registry = ToolRegistry([NotebookTool()])
    with pytest.raises(DuplicateTool):
        registry.add(NotebookTool())
    assert len(registry) == 1
