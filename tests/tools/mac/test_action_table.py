"""Action tables: what the model, the approver and the Permissions page see is derived from the
rows, calls validate into their row's model, and the dispatch runs each row's script (in the
Node JXA stand-in, a simulation) or its handler."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import Field, ValidationError

from tests.support.jxa.world import OSASCRIPT, WORLD_ENV, World
from tools.base import InvalidInput, Risk, RunContext, Tool, ToolResult
from tools.mac.action_table import Action, ActionInput, ActionTable, LookedUp, TableTool, fill
from tools.mac.apps import AppsTool
from tools.mac.macos import MacosTool
from tools.mac.osa.engine import OSASCRIPT_ENV, OsaEngine
from tools.mac.osa.errors import MODEL_PHRASES, ProblemKind
from tools.mac.tabs import TabsTool

TEST_SCRIPTS = Path(__file__).with_name("osa") / "scripts"
NO_ENGINE = OsaEngine(osascript="/nonexistent")
MAC_TOOLS: list[TableTool[Any]] = [MacosTool(NO_ENGINE), AppsTool(NO_ENGINE), TabsTool(NO_ENGINE)]


# --- a small table of its own ------------------------------------------------------------------


class ToyInput(ActionInput):
    where: str | None = Field(None, description="a shared place.")


class Echo(ToyInput):
    text: str = Field(max_length=50, description="what to echo")
    times: int = Field(1, ge=1, le=3, description="how often")
    secret: LookedUp[str] = None

    @property
    def shout(self) -> str:
        return self.text.upper()


class Note(ToyInput):
    text: str | None = Field(None, max_length=50, description="a note")
    times: int = Field(1, ge=1, le=3, description="how often")


def _echoed(call: Echo, answer: dict[str, Any]) -> ToolResult:
    return ToolResult(text=json.dumps(answer["echo"], sort_keys=True))


async def _twice(tool: ToyTool, call: Note) -> ToolResult:
    first = await tool.call_action_script(call, {"n": 1})
    second = await tool.call_action_script(call, {"n": 2})
    return ToolResult(text=f"{first['echo']['n']}+{second['echo']['n']}")


TOY = ActionTable(
    ToyInput,
    about="A toy.",
    closing="Nothing here is real.",
    rows=[
        Action(
            "echo", Echo, Risk.READ, "Echoes {text!q}", label="Echo text",
            summary="Echo {text!q:8} {times} times ({shout!n} letters)", script="echo",
            target="Toy App", drives="Toy App", result=_echoed,
        ),
        Action(
            "note", Note, Risk.CHANGE, "Writes a note", label="Write a note",
            summary="Write a note", hint="twice", script="echo", run=_twice,
        ),
        Action(
            "nothing", ToyInput, Risk.CONSEQUENTIAL, "Does nothing", label="Do nothing",
            summary="Do nothing", script="echo", result="Did nothing.",
        ),
        Action(
            "garbled", ToyInput, Risk.READ, "Reads nonsense", label="Read nonsense",
            summary="Read nonsense", script="not_json",
        ),
    ],
)  # fmt: skip


class ToyTool(TableTool[ToyInput]):
    name: ClassVar[str] = "toy"
    title: ClassVar[str] = "Toy"
    table: ClassVar[ActionTable[Any]] = TOY
    description: ClassVar[str] = TOY.description
    Input = ToyInput

    def check(self, call: ToyInput, answer: dict[str, Any], ctx: RunContext) -> ToolResult | None:
        if answer["echo"].get("where") == "nowhere":
            return ToolResult.failure("Refused.")
        return None


def test_the_schema_is_one_object_built_from_the_rows() -> None:
    schema = ToyTool(NO_ENGINE).api_schema()["input_schema"]
    assert schema["required"] == ["action"]
    assert schema["properties"] == {
        "action": {
            "type": "string",
            "enum": ["echo", "note", "nothing", "garbled"],
            "description": "What to do.",
        },
        "where": {"type": "string", "description": "a shared place."},
        "text": {
            "type": "string", "maxLength": 50, "description": "echo: what to echo; note: a note.",
        },
        "times": {
            "type": "integer", "minimum": 1, "maximum": 3, "default": 1,
            "description": "echo, note: how often.",
        },
    }  # fmt: skip


def test_the_description_lists_each_action_with_its_fields() -> None:
    assert ToyTool.description == (
        "A toy. Actions: echo (text, times), note (text, times: twice), nothing, garbled. "
        "Nothing here is real."
    )


def test_calls_validate_into_their_rows_model() -> None:
    echo = ToyInput.model_validate({"action": "echo", "text": "hi", "where": "here"})
    assert type(echo) is Echo and (echo.text, echo.times, echo.where) == ("hi", 1, "here")
    assert type(ToyInput(action="note")) is Note
    assert type(ToyInput(action="nothing", text="ignored")) is ToyInput
    for bad in [
        {"action": "format_disk"},
        {},
        {"action": "echo"},
        {"action": "echo", "text": ""},  # a needed field left empty
        {"action": "echo", "text": "hi", "times": 9},
        {"action": "echo", "text": "x" * 51},
    ]:
        with pytest.raises(ValidationError):
            ToyInput.model_validate(bad)


def test_a_looked_up_value_never_comes_from_input_nor_goes_to_the_script() -> None:
    call = ToyInput.model_validate({"action": "echo", "text": "hi", "secret": "from the model"})
    assert isinstance(call, Echo) and call.secret is None
    looked_up = call.model_copy(update={"secret": "looked up"})
    assert looked_up.secret == "looked up"
    assert looked_up.payload() == {"where": None, "text": "hi", "times": 1}


def test_summary_risk_and_target_come_from_the_templates() -> None:
    tool = ToyTool(NO_ENGINE)
    call = ToyInput.model_validate({"action": "echo", "text": "a\u202eb'c long text", "times": 2})
    assert tool.summary(call) == "Echo 'a\\u202eb\\'c l…' 2 times (15 letters)"
    assert tool.risk(call) == (Risk.READ, "Echoes 'a\\u202eb\\'c long text'")
    assert tool.target(call) == "Toy App" and tool.action(call) == "echo"
    assert tool.target(ToyInput(action="nothing")) is None
    assert fill("{where!q}", ToyInput(action="nothing", where="x\ny")) == "'x\\u000ay'"


def test_mistakes_in_a_table_fail_when_it_is_built() -> None:
    class Base(ActionInput):
        pass

    class Named(Base):
        name: str = Field(description="a name")

    class Counted(Base):
        name: int = Field(description="a count")

    def row(name: str, fields: type[ActionInput], summary: str = "Go", **more: Any) -> Action[Any]:
        return Action(name, fields, Risk.READ, "r", label="l", summary=summary, script="x", **more)

    mistakes: list[tuple[list[Action[Any]], str]] = [
        ([row("a", Named, summary="Go to {nmae}")], "names 'nmae'"),
        ([row("a", Named, summary="Go to {name!x}")], "unknown conversion"),
        ([row("a", Named, target="{nope}")], "names 'nope'"),
        ([row("a", Named), row("b", Counted)], "differs"),
        ([row("a", Named), row("a", Named)], "named twice"),
        ([row("a", Echo)], "subclass"),
    ]
    for rows, problem in mistakes:
        with pytest.raises((ValueError, TypeError), match=problem):
            ActionTable(Base, rows, about="")
    ActionTable(Base, [row("a", Named, summary="Go to {name!q}")], about="")
    with pytest.raises(ValueError, match="already has"):
        ActionTable(Base, [row("a", Named)], about="")


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    if shutil.which("node") is None:
        pytest.skip("the JXA stand-in needs node")
    world = World(tmp_path / "world.json")
    world.write({})
    monkeypatch.setenv(WORLD_ENV, str(world.path))
    monkeypatch.setenv(OSASCRIPT_ENV, str(OSASCRIPT))
    loop = asyncio.new_event_loop()
    engine = OsaEngine(workers=0, scripts_dir=TEST_SCRIPTS)
    tool = ToyTool(engine)

    def call(**fields: Any) -> ToolResult:
        ctx = RunContext(session_id=1, attachments_dir=tmp_path)
        return loop.run_until_complete(tool.run(ToyInput.model_validate(fields), ctx))

    call.engine = engine  # type: ignore[attr-defined]
    yield call
    loop.run_until_complete(engine.aclose())
    loop.close()


def test_each_row_runs_its_script_or_its_handler(toy: Any) -> None:
    echoed = toy(action="echo", text="hi", where="here", times=2)
    assert json.loads(echoed.text) == {"text": "hi", "times": 2, "where": "here"}
    assert toy.engine.automation.state("Toy App") == "allowed"  # the row's `drives`
    assert toy(action="note").text == "1+2"
    assert toy(action="nothing").text == "Did nothing."
    refused = toy(action="nothing", where="nowhere")
    assert (refused.is_error, refused.text) == (True, "Refused.")
    garbled = toy(action="garbled")
    assert garbled.is_error and garbled.text == MODEL_PHRASES[ProblemKind.BAD_OUTPUT]


# --- the Mac tools -------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", MAC_TOOLS, ids=lambda tool: tool.name)
def test_every_row_is_in_the_schema_and_on_the_permissions_page(tool: TableTool[Any]) -> None:
    rows = list(tool.table)
    schema = tool.api_schema()["input_schema"]
    assert schema["properties"]["action"]["enum"] == [row.name for row in rows]
    assert [(info.name, info.risk, info.description) for info in tool.actions()] == [
        (row.name, row.risk, row.label) for row in rows
    ]
    shared = set(tool.Input.model_fields)
    for row in rows:
        assert f"{row.name} (" in tool.description or f" {row.name}," in tool.description
        for name, info in row.fields.model_fields.items():
            if name in shared or info.exclude:
                continue
            prop = schema["properties"][info.alias or name]
            assert row.name in prop["description"], (row.name, name)


@pytest.mark.parametrize("tool", MAC_TOOLS, ids=lambda tool: tool.name)
def test_an_unknown_action_is_refused_as_invalid_input(tool: Tool[Any]) -> None:
    """The pipeline answers InvalidInput with the fixed BAD_INPUT phrase (tests/desktop)."""
    for raw in [{"action": "format_disk"}, {}, {"action": None}, {"action": ["list_tabs"]}]:
        with pytest.raises(InvalidInput):
            tool.validate(raw)


@pytest.mark.parametrize("tool", MAC_TOOLS, ids=lambda tool: tool.name)
def test_a_call_reaches_the_gate_as_its_rows_model(tool: TableTool[Any]) -> None:
    def needs_nothing(row: Action[Any]) -> bool:
        fields = row.fields.model_fields
        return not any(info.is_required() for name, info in fields.items() if name != "action")

    row = next(row for row in tool.table if needs_nothing(row))  # e.g. list_tabs
    call = tool.validate({"action": row.name})
    assert isinstance(call, row.fields) and tool.action(call) == row.name
    assert tool.risk(call)[0] is row.risk and tool.summary(call)
