"""Function tools as a tool source: the registry's tools, each described and run the same way.

A call is validated against the tool's schema and described (action, risk, summary, target):
the card shows that description, and a Never rule is settled on it before the tool does any
work. Then, right before it runs, the tool may refuse it (it could not run as written) or
complete it with lookups the approver should see (`prepare`: the tabs a close affects, the
element a click lands on as it is now); the gate is asked about the call as completed, and it
runs.
"""

from __future__ import annotations

from typing import Any

from desktop.calls.contract import (
    ActionGroup,
    CallContext,
    CallResult,
    CallSource,
    ToolSource,
    ToolUse,
    tool_label,
)
from desktop.calls.gate import denial_text
from desktop.calls.permissions import ToolCall
from tools.base import FunctionTool, InvalidInput, RunContext, ToolRegistry, ToolResult


class FunctionTools(ToolSource):
    """The source of the registry's function tools (the Mac's, the `screen` tool, tests')."""

    name = "functions"

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry

    def api_tools(self) -> list[dict[str, Any]]:
        return self.registry.api_tools()

    def handles(self, use: ToolUse) -> bool:
        return use.toolset_name is None and use.name in self.registry

    def _tool(self, use: ToolUse) -> FunctionTool[Any]:
        tool = self.registry.get(use.name)
        if tool is None:  # removed since the reply was written
            raise InvalidInput(use.name)
        return tool

    def label(self, use: ToolUse) -> str:
        tool = self.registry.get(use.name)
        if tool is None:
            return use.name
        action = use.arguments.get("action")
        return tool_label(tool.title, action if isinstance(action, str) else tool.name)

    def call_source(self, use: ToolUse) -> CallSource:
        tool = self.registry.get(use.name)
        if tool is None:  # as its label: the name the model used
            return CallSource(title=use.name)
        return CallSource(name=tool.name, title=tool.title)

    async def describe(self, use: ToolUse, session_id: int) -> ToolCall:
        tool = self._tool(use)
        return self._call(tool, tool.validate(use.arguments, session_id), use, session_id)

    @staticmethod
    def _call(tool: FunctionTool[Any], parsed: Any, use: ToolUse, session_id: int) -> ToolCall:
        action = tool.action(parsed)
        risk, reason = tool.risk(parsed)
        return ToolCall(
            session_id=session_id,
            tool_use_id=use.id,
            tool=tool.name,
            action=action,
            label=tool_label(tool.title, action),
            input=use.arguments,
            risk=risk,
            reason=reason,
            summary=tool.summary(parsed),
            target=tool.target(parsed),
            lands=tool.lands(parsed),
        )

    async def run(self, use: ToolUse, call: ToolCall, ctx: CallContext) -> CallResult:
        tool = self._tool(use)
        prepared = await tool.prepare(tool.validate(use.arguments, ctx.session_id))
        if isinstance(prepared, ToolResult):
            return CallResult.of(prepared)  # nothing to ask about: it could not run as written
        # The lookups complete what the approver reads.
        decision = await ctx.approve(self._call(tool, prepared, use, ctx.session_id))
        if decision.verdict != "allow":
            return CallResult.failure(denial_text(decision))
        run_context = RunContext(
            session_id=ctx.session_id,
            attachments_dir=ctx.attachments_dir,
            progress=ctx.progress,
            cancelled=ctx.cancelled,
        )
        return CallResult.of(await tool.run(prepared, run_context))

    def action_groups(self) -> list[ActionGroup]:
        return [
            ActionGroup(tool=tool.name, title=tool.title, actions=tool.actions())
            for tool in self.registry
        ]
