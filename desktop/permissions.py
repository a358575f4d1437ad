"""The one gate every tool call passes: modes, per-action rules, decisions, and approval requests.

Decision order: the person's rule for the action (Never / Always allow / Ask), then the
mode by the call's risk level. A mode never overrides a Never rule. `ask` is answered by
the person through an `ApprovalRequest` that the window shows as a sheet.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

# Re-exported: the ui reads risk levels from here, since it never imports `tools`.
from tools.base import Risk as Risk


class Mode(StrEnum):
    ASK = "ask"  # ask every time
    CHANGES = "changes"  # reads run; changes and consequential calls ask
    AUTONOMOUS = "autonomous"  # only consequential calls ask


MODE_TITLES = {
    Mode.ASK: "Ask every time",
    Mode.CHANGES: "Ask for changes",
    Mode.AUTONOMOUS: "Autonomous",
}


class Rule(StrEnum):
    ALLOW = "allow"
    ASK = "ask"
    NEVER = "never"


RULE_TITLES = {Rule.ALLOW: "Always allow", Rule.ASK: "Ask", Rule.NEVER: "Never"}


class PermissionSettings(BaseModel):
    mode: Mode = Field(
        Mode.CHANGES,
        title="Mode",
        description="When Deskhand asks before acting. A Never rule always wins.",
    )
    rules: dict[str, Rule] = Field(
        default_factory=dict,
        title="Rules",
        description="Per action: tool.action, or tool.action@host for one site.",
    )


class ToolCall(BaseModel):
    """One call as the gate and the approver see it."""

    session_id: int
    tool_use_id: str
    tool: str
    action: str
    label: str = ""  # the card's and the sheet's title: "Browser: left click"
    input: dict[str, Any]
    risk: Risk
    reason: str
    summary: str
    target: str | None = None  # page URL or app

    @property
    def rule_key(self) -> str:
        return f"{self.tool}.{self.action}"

    @property
    def host(self) -> str | None:
        if self.target and "://" in self.target:
            return urlsplit(self.target).hostname
        return None


Verdict = Literal["allow", "deny", "ask"]


class Decision(BaseModel):
    verdict: Verdict
    by: Literal["rule", "mode", "person", "stop"]
    reason: str = ""


def rule_for(call: ToolCall, rules: dict[str, Rule]) -> Rule | None:
    """The most specific rule: tool.action@host, then tool.action, then the whole tool."""
    keys = [call.rule_key, call.tool]
    if call.host:
        keys.insert(0, f"{call.rule_key}@{call.host}")
    for key in keys:
        if key in rules:
            return rules[key]
    return None


def decide(call: ToolCall, settings: PermissionSettings) -> Decision:
    rule = rule_for(call, settings.rules)
    if rule is Rule.NEVER:
        return Decision(verdict="deny", by="rule", reason="set to Never")
    if rule is Rule.ALLOW:
        return Decision(verdict="allow", by="rule", reason="set to Always allow")
    if rule is Rule.ASK:
        return Decision(verdict="ask", by="rule", reason="set to Ask")
    asks = {
        Mode.ASK: {Risk.READ, Risk.CHANGE, Risk.CONSEQUENTIAL},
        Mode.CHANGES: {Risk.CHANGE, Risk.CONSEQUENTIAL},
        Mode.AUTONOMOUS: {Risk.CONSEQUENTIAL},
    }[settings.mode]
    if call.risk in asks:
        return Decision(
            verdict="ask", by="mode", reason=f"{MODE_TITLES[settings.mode]}: {call.risk.value}"
        )
    return Decision(
        verdict="allow", by="mode", reason=f"{MODE_TITLES[settings.mode]}: {call.risk.value}"
    )


class Answer(BaseModel):
    allow: bool
    always: bool = False  # remember "Always allow" for this action
    reason: str = ""  # the person's optional reason for a denial


DENIED_BY_PERSON = (
    "The person denied this action. Do not try it again in another way unless they ask."
)
DENIED_BY_RULE = (
    "This action is blocked by a rule the person set (Never). Do not try it again; tell them."
)
NO_APPROVER = "This action needs the person's approval, and no one is here to give it."


def input_for_approver(call: ToolCall) -> str:
    """The exact input as pretty JSON with every invisible or non-ASCII character escaped.

    What the approver reads is what runs: a zero-width space shows as \\u200b, a
    right-to-left override as \\u202e, a newline inside a value as \\n.
    """
    return json.dumps(call.input, indent=2, ensure_ascii=True)


RISK_TITLES = {
    Risk.READ: "Read",
    Risk.CHANGE: "Change",
    Risk.CONSEQUENTIAL: "Consequential",
}
