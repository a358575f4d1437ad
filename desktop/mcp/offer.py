"""What `deskhand mcp` offers: this machine's tools as MCP tools, with annotations from risk.

One MCP tool per SDK toolset member (`browser_navigate`, the screen's `computer_…`),
with the member's input schema and description from the SDK's generated input models, and
one per function tool (the Mac tools, where there is osascript). A tool's annotations come
from the highest risk of what it can do: read → `readOnlyHint`, consequential →
`destructiveHint`. MCP servers' own tools are never offered again.
"""

from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass
from typing import Any

import mcp_types
from anthropic.types import beta

from desktop.calls.contract import ToolSource, ToolUse
from desktop.calls.permissions import RISK_ORDER, Risk
from desktop.calls.plans import PLAN_TOOL
from desktop.calls.sources.function_tools import FunctionTools
from desktop.calls.sources.toolsets import ToolsetSource

# The generated tool_use unions the SDK parses each family's member inputs with.
TOOLSET_UNIONS: dict[str, Any] = {
    "browser": beta.BetaResponseBrowserToolUseBlock,
    "computer": beta.BetaResponseComputerToolUseBlock,
}


@dataclass(frozen=True)
class Offered:
    """One MCP tool and the tool_use it becomes for its source."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    risk: Risk  # the highest risk of anything it can do
    source: ToolSource
    member: str  # the tool_use name its source expects
    toolset: str | None = None  # the tool_use's toolset_name, for a toolset member
    open_world: bool = False  # it reaches the web

    def tool_use(self, use_id: str, arguments: dict[str, Any]) -> ToolUse:
        return ToolUse(id=use_id, name=self.member, input=arguments, toolset_name=self.toolset)

    def mcp_tool(self) -> mcp_types.Tool:
        return mcp_types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.input_schema,
            annotations=mcp_types.ToolAnnotations(
                title=self.title,
                read_only_hint=self.risk is Risk.READ,
                destructive_hint=self.risk is Risk.CONSEQUENTIAL,
                open_world_hint=self.open_world,
            ),
        )


def _models(union: Any) -> list[Any]:
    """The pydantic models inside a (possibly annotated, nested) union."""
    origin = typing.get_origin(union)
    if origin is typing.Annotated:
        return _models(typing.get_args(union)[0])
    if origin is typing.Union:
        return [model for arg in typing.get_args(union) for model in _models(arg)]
    return [union]


def member_inputs(family: str) -> dict[str, Any]:
    """Each member of a toolset family with the model its input is parsed into."""
    union = TOOLSET_UNIONS.get(family)
    if union is None:
        return {}
    inputs = {}
    for block in _models(union):
        [name] = typing.get_args(block.model_fields["name"].annotation)
        inputs[name] = block.model_fields["input"].annotation
    return inputs


def _toolset_tools(source: ToolsetSource) -> list[Offered]:
    inputs = member_inputs(source.name)
    offered = []
    for member in source.members():
        model = inputs.get(member.name)
        if model is None:  # a member the SDK has no input model for: nothing to describe
            continue
        schema = model.model_json_schema()
        schema.pop("title", None)
        description = inspect.cleandoc(model.__doc__ or "") or member.description
        offered.append(
            Offered(
                name=f"{source.name}_{member.name}",
                title=f"{source.title}: {member.name.replace('_', ' ')}",
                description=description,
                input_schema=schema,
                risk=member.risk,
                source=source,
                member=member.name,
                toolset=source.name,
                open_world=source.name == "browser",
            )
        )
    return offered


def _function_tools(source: FunctionTools) -> list[Offered]:
    offered = []
    for tool in source.registry:
        if not tool.offered() or tool.name == PLAN_TOOL:  # plans belong to chats
            continue
        risks = [action.risk for action in tool.actions()] or [Risk.CONSEQUENTIAL]
        offered.append(
            Offered(
                name=tool.name,
                title=tool.title,
                description=tool.description,
                input_schema=tool.input_schema(),
                risk=max(risks, key=RISK_ORDER.index),
                source=source,
                member=tool.name,
            )
        )
    return offered


def offered_tools(sources: list[ToolSource]) -> dict[str, Offered]:
    """Every tool `deskhand mcp` offers, by MCP name, from these sources (MCP ones skipped)."""
    offered: dict[str, Offered] = {}
    for source in sources:
        if isinstance(source, ToolsetSource):
            tools = _toolset_tools(source)
        elif isinstance(source, FunctionTools):
            tools = _function_tools(source)
        else:  # MCP servers' tools, or a kind this server does not know how to offer
            continue
        for tool in tools:
            offered.setdefault(tool.name, tool)
    return offered
