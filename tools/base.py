"""The function-tool contract: an input schema, a risk level, a summary, and one async `run`.

Two ways to give a tool its schema:

- `Tool`: a pydantic model (`Input`) is the schema, and validation builds the model.
- `SchemaTool`: the schema is data (an MCP server's tool, a command generated from an app's
  scripting dictionary); validation checks the JSON input against it and passes the dict on.

A tool never raises into the agent: failures come back as `ToolResult.failure(...)` with a
fixed phrase, so the model reads what happened and the turn goes on. `ToolFailure` is the base
of what tools raise inside (never shown to the model); the one error the model reads from an
SDK toolset is the SDK's own `ToolError`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tools.data import Data
from tools.failure import DuplicateTool, InvalidInput
from tools.failure import ToolFailure as ToolFailure
from tools.outcome import Outcome
from tools.risk import Risk


class ActionInfo(Data):
    name: str
    risk: Risk
    description: str = ""


class ToolImage(Data):
    data: bytes
    media_type: str = "image/png"
    width: int
    height: int


class ToolResult(Data):
    """What a tool hands back: text and/or images, or an error written as a fixed phrase.

    `data` is the same outcome as plain values for programs (the command line's `--json`): the
    model never reads it, so it may carry what the text leaves out (bounds, pids)."""

    text: str = ""
    images: list[ToolImage] = Field(default_factory=list)
    is_error: bool = False
    data: dict[str, Any] | None = None
    # What the call really did, as the tool saw it afterwards (None: the tool did not check,
    # or the call only read). Its `effect_text()` is part of `text` already.
    outcome: Outcome | None = None

    @classmethod
    def failure(cls, phrase: str, data: dict[str, Any] | None = None) -> ToolResult:
        return cls(text=phrase, is_error=True, data=data)


class RunContext(Data):
    """What a running tool may use: report progress, notice cancellation, store attachments."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    session_id: int
    attachments_dir: Path
    progress: Callable[[str], None] = lambda _line: None
    cancelled: asyncio.Event = Field(default_factory=asyncio.Event)


InputT = TypeVar("InputT")


class FunctionTool(Generic[InputT]):
    """What every function tool offers: its schema, validation, how a call reads, and `run`.

    Override `risk`/`summary`/`target`/`action` to describe calls; `prepare` may look things
    up (asynchronously) that the approver should see, or refuse a call that cannot run as
    written, after a Never rule has had its say.
    """

    name: str
    title: str  # the card label prefix, e.g. "macOS"
    description: str

    def input_schema(self) -> dict[str, Any]:
        raise NotImplementedError

    def validate(self, raw: dict[str, Any], session_id: int = 0) -> InputT:
        """The call's input, checked against the schema, for the chat it is made in (a tool
        that keeps something per chat, the screen's snapshots, keeps it); raises InvalidInput.
        No effects."""
        raise NotImplementedError

    def risk(self, call: InputT) -> tuple[Risk, str]:
        """The call's risk level and the reason for it."""
        return Risk.CONSEQUENTIAL, "Unknown effects"

    def action(self, call: InputT) -> str:
        """The action name used by permission rules (`tool.action`)."""
        return str(getattr(call, "action", self.name))

    def summary(self, call: InputT) -> str:
        """One line a person reads in the approval sheet, e.g. "Send mail to ana@example.com"."""
        return f"{self.title}: {self.action(call)}"

    def target(self, call: InputT) -> str | None:
        """What the call acts on, shown to the approver: a page URL or an app name."""
        return None

    def lands(self, call: InputT) -> list[str]:
        """Where else the call's effect reaches besides its target (a page it opens, a link it
        follows): a chat's plan holds these to its sites too."""
        return []

    def offered(self) -> bool:
        """Whether the tool is offered to the model now (the screen only where it can be used)."""
        return True

    async def prepare(self, call: InputT) -> InputT | ToolResult:
        """The call as the approver should see it (e.g. the tabs a close affects), or a refusal
        to send back before anyone is asked (a name the app does not have). Runs after a Never
        rule has had its say; looks only, no effects."""
        return call

    def actions(self) -> list[ActionInfo]:
        """Every action this tool offers with its usual risk, for the Permissions page."""
        return [ActionInfo(name=self.name, risk=Risk.CONSEQUENTIAL, description=self.description)]

    async def run(self, call: InputT, ctx: RunContext) -> ToolResult:
        raise NotImplementedError

    def api_schema(self) -> dict[str, Any]:
        """The `tools[]` entry (from the hooks above; not one itself)."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema(),
        }


ModelT = TypeVar("ModelT", bound=BaseModel)


class Tool(FunctionTool[ModelT]):
    """A tool whose schema is a pydantic model: subclass with `name`, `title`, `description`,
    `Input` and `run`."""

    Input: type[ModelT]

    def input_schema(self) -> dict[str, Any]:
        return self.Input.model_json_schema()

    def validate(self, raw: dict[str, Any], session_id: int = 0) -> ModelT:
        try:
            return self.Input.model_validate(raw)
        except ValidationError as exc:
            raise InvalidInput(self.name) from exc


class SchemaTool(FunctionTool[dict[str, Any]]):
    """A tool whose schema is data; the input reaches `run` as the checked JSON object."""

    def __init__(self, *, name: str, title: str, description: str, schema: dict[str, Any]) -> None:
        self.name = name
        self.title = title
        self.description = description
        self.schema = schema
        import jsonschema  # a fifth of a second: loaded by the first tool built from a schema

        self._validator = jsonschema.Draft202012Validator(schema)

    def input_schema(self) -> dict[str, Any]:
        return self.schema

    def validate(self, raw: dict[str, Any], session_id: int = 0) -> dict[str, Any]:
        if not self._validator.is_valid(raw):
            raise InvalidInput(self.name)
        return raw


UNKNOWN_TOOL = "There is no tool with that name here. Use one of the tools listed."
BAD_INPUT = (
    "The input did not match the tool's schema. Check the field names and types and call again."
)
NOT_AN_OBJECT = "The tool's input must be a JSON object with the fields its schema lists."
TOOL_FAILED = "The tool failed unexpectedly. Tell the person, and try another way if there is one."


class ToolRegistry:
    """The function tools offered to the model, by name; a second tool with a taken name is refused."""

    def __init__(self, tools: list[FunctionTool[Any]] | None = None) -> None:
        self._tools: dict[str, FunctionTool[Any]] = {}
        for tool in tools or []:
            self.add(tool)

    def add(self, tool: FunctionTool[Any]) -> None:
        if tool.name in self._tools:
            raise DuplicateTool(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def remove(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> FunctionTool[Any] | None:
        return self._tools.get(name)

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[FunctionTool[Any]]:
        return iter(list(self._tools.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def api_tools(self) -> list[dict[str, Any]]:
        return [tool.api_schema() for tool in self._tools.values() if tool.offered()]
