"""The tool contract: a pydantic input model, a risk level, a summary, and one async `run`.

A tool never raises into the agent: failures come back as `ToolResult.failure(...)` with a
fixed phrase, so the model reads what happened and the turn goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, Field, ValidationError


class ToolError(Exception):
    """Base of the errors tools raise internally; turned into a fixed phrase before the model sees it."""


class Risk(StrEnum):
    READ = "read"  # no side effects
    CHANGE = "change"  # creates or edits something, undoable
    CONSEQUENTIAL = "consequential"  # sends, deletes, quits, pays, runs code


class ActionInfo(BaseModel):
    name: str
    risk: Risk
    description: str = ""


class ToolImage(BaseModel):
    data: bytes
    media_type: str = "image/png"
    width: int
    height: int


class ToolResult(BaseModel):
    """What a tool hands back: text and/or images, or an error written as a fixed phrase."""

    text: str = ""
    images: list[ToolImage] = Field(default_factory=list)
    is_error: bool = False

    @classmethod
    def failure(cls, phrase: str) -> ToolResult:
        return cls(text=phrase, is_error=True)


class RunContext(BaseModel):
    """What a running tool may use: report progress, notice cancellation, store attachments."""

    model_config = {"arbitrary_types_allowed": True}

    session_id: int
    attachments_dir: Path
    progress: Callable[[str], None] = lambda _line: None
    cancelled: asyncio.Event = Field(default_factory=asyncio.Event)


InputT = TypeVar("InputT", bound=BaseModel)


class Tool(Generic[InputT]):
    """Subclass with `name`, `title`, `description`, `Input`, and `run`; override `risk`/`summary`."""

    name: ClassVar[str]
    title: ClassVar[str]  # the card label prefix, e.g. "Browser"
    description: ClassVar[str]
    Input: type[InputT]

    def risk(self, call: InputT) -> tuple[Risk, str]:
        """The call's risk level and the reason for it."""
        return Risk.CONSEQUENTIAL, "Unknown effects"

    def action(self, call: InputT) -> str:
        """The action name used by permission rules (`tool.action`)."""
        return getattr(call, "action", self.name)

    def summary(self, call: InputT) -> str:
        """One line a person reads in the approval sheet, e.g. "Send mail to ana@example.com"."""
        return f"{self.title}: {self.action(call)}"

    def target(self, call: InputT) -> str | None:
        """What the call acts on, shown to the approver: a page URL or an app name."""
        return None

    def actions(self) -> list[ActionInfo]:
        """Every action this tool offers with its usual risk, for the Permissions page."""
        return [ActionInfo(name=self.name, risk=Risk.CONSEQUENTIAL, description=self.description)]

    async def run(self, call: InputT, ctx: RunContext) -> ToolResult:
        raise NotImplementedError

    def api_schema(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.Input.model_json_schema(),
        }


UNKNOWN_TOOL = "There is no tool with that name here. Use one of the tools listed."
BAD_INPUT = (
    "The input did not match the tool's schema. Check the field names and types and call again."
)
TOOL_FAILED = "The tool failed unexpectedly. Tell the person, and try another way if there is one."


class ToolRegistry:
    """The tools offered to the model, by name."""

    def __init__(self, tools: list[Tool[Any]] | None = None) -> None:
        self._tools: dict[str, Tool[Any]] = {tool.name: tool for tool in tools or []}

    def add(self, tool: Tool[Any]) -> None:
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool[Any] | None:
        return self._tools.get(name)

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool[Any]]:
        return iter(self._tools.values())

    def api_tools(self) -> list[dict[str, Any]]:
        return [tool.api_schema() for tool in self._tools.values()]

    def parse(self, name: str, raw: dict[str, Any]) -> tuple[Tool[Any], BaseModel] | ToolResult:
        """The tool and its validated input, or the failure to send back."""
        tool = self._tools.get(name)
        if tool is None:
            return ToolResult.failure(UNKNOWN_TOOL)
        try:
            return tool, tool.Input.model_validate(raw)
        except ValidationError:
            return ToolResult.failure(BAD_INPUT)
