"""What `deskhand mcp` offers: this machine's tools as MCP tools, with annotations from risk.

One MCP tool per SDK toolset member (`browser_navigate`, the screen's `computer_…`), with the
member's input schema and description from the SDK's generated input models, and one per
function tool (the Mac tools, where there is osascript; `screen`, where other apps' elements can
be read). A tool's annotations come from the highest risk of what it can do: read →
`readOnlyHint`, consequential → `destructiveHint`. MCP servers' own tools are never offered again.

Only what can run here is offered: no screen tools without a display (or, on a Mac, without its
permissions), no Mac tools off a Mac, nothing turned off in Settings. What is left out is said
in one sentence each (`missing`): in the server's instructions, and in the refusal of a call
to a tool that is not offered, so the person learns what they could change.
"""

from __future__ import annotations

import inspect
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types
from anthropic.types import beta

from desktop.calls.contract import ToolSource, ToolUse
from desktop.calls.permissions import Risk
from desktop.calls.sources.function_tools import FunctionTools
from desktop.calls.sources.plan.book import PLAN_TOOL
from desktop.calls.sources.toolsets import ToolsetSource
from desktop.system.settings.model import BrowserSettings, Settings
from tools.browser.config import OPTIONAL_MEMBERS

if TYPE_CHECKING:
    from desktop.calls.sources.screen.source import ScreenControl

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
    available: Callable[[], bool] = lambda: True  # it can still run (the screen may go away)

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
    if not source.available():  # the screen without a display, or turned off in Settings
        return []
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
                available=source.available,
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
                risk=Risk.highest(risks),
                source=source,
                member=tool.name,
                available=tool.offered,
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


# --- what is not offered, and why ---------------------------------------------------------------

SCREEN = ("computer_", "screen")
MAC = ("macos", "apps", "tabs", "apps_list", "app_dictionary", "app_command")
IN_SETTINGS = "Deskhand → Settings → {page}"


@dataclass(frozen=True)
class Missing:
    """Tools left out here and why, in one sentence the person can act on."""

    names: tuple[str, ...]  # tool names; one ending in "_" names a family (`computer_`)
    why: str

    def covers(self, name: str) -> bool:
        return any(
            name.startswith(given) if given.endswith("_") else name == given for given in self.names
        )


def _sentence(head: str, reason: str, fix: str) -> str:
    """`head`: `reason`; `fix` — as one sentence (the reasons are sentences of their own)."""
    reason, fix = _lower(reason.strip().rstrip(".")), _lower(fix.strip().rstrip("."))
    if fix:
        return f"{head}: {reason}; to change that, {fix}."
    return f"{head}: {reason}."


def _lower(words: str) -> str:
    """A sentence's first letter made small, to go on after a colon (not an acronym's)."""
    if len(words) > 1 and words[1].isupper():
        return words
    return words[:1].lower() + words[1:]


def _off(head: str, page: str, what: str) -> str:
    where = IN_SETTINGS.format(page=page)
    return f"{head}: {what} is off in {where}, where the person can turn it on."


def missing(
    settings: Settings, screen: ScreenControl | None, mac: tuple[bool, str]
) -> list[Missing]:
    """What this server leaves out on this computer with these settings, one sentence each.
    `mac`: whether the Mac tools can run here, and the line that says why not."""
    found: list[Missing] = []
    browser = settings.browser
    if not browser.enabled:
        found.append(Missing(("browser_",), _off("No browser tools", "Browser", "the browser")))
    else:
        for member in OPTIONAL_MEMBERS:
            if not getattr(browser, member):
                title = BrowserSettings.model_fields[member].title or member
                head = f"No browser_{member}"
                found.append(Missing((f"browser_{member}",), _off(head, "Browser", f"“{title}”")))
    head = "No screen tools (computer_*, screen)"
    status = screen.status if screen is not None else None
    if not settings.screen.enabled:
        found.append(Missing(SCREEN, _off(head, "Screen", "Screen control")))
    elif status is not None and not status.available:
        found.append(Missing(SCREEN, _sentence(head, status.reason, status.fix)))
    elif screen is not None:
        elements = screen.elements.status
        if elements is not None and not elements.available:
            head = "No screen tool (other apps' elements by id)"
            found.append(Missing(("screen",), _sentence(head, elements.reason, elements.fix)))
    available, line = mac
    head = "No Mac app tools (macos, apps, tabs, app_command…)"
    if sys.platform != "darwin":
        found.append(Missing(MAC, f"{head}: they need macOS, and this computer is not a Mac."))
    elif not settings.apps.macos_enabled:
        found.append(Missing(MAC, _off(head, "Apps", "Mac apps")))
    elif not available:
        found.append(Missing(MAC, _sentence(head, line, "")))
    return found


def why_missing(name: str, left_out: list[Missing]) -> str | None:
    """The sentence for a tool this server does not offer now, or None if none covers it."""
    return next((entry.why for entry in left_out if entry.covers(name)), None)
