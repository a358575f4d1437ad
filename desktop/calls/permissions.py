"""Permissions, pure: modes, per-action rules, the decision for a call, and the person's answer.

Decision order: the person's rule for the action (Never / Always allow / Ask), then the
mode by the call's risk level. A mode never overrides a Never rule. Nothing here waits,
asks or writes: the gate (`gate.py`) puts these decisions into effect: it asks the person
through an `ApprovalRequest` the window shows as a sheet, audits, and remembers rules.
"""

from __future__ import annotations

import json
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field

from desktop.system.settings.permissions import MODE_TITLES, Mode, PermissionSettings, Rule

# Re-exported: the ui reads risk levels from here, since it never imports `tools`.
from tools.base import Risk as Risk
from tools.data import Data
from tools.meaning import TargetMeaning


class ToolCall(Data):
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
    # Where else the call's effect lands: a link's target, a form's action (plans judge them).
    lands: list[str] = Field(default_factory=list)
    # What it acts on by meaning (tools/meaning.py): kept on the card, so a routine finds it again.
    meaning: TargetMeaning | None = None

    @property
    def rule_key(self) -> str:
        """The action's rule key (any site, any risk)."""
        return f"{self.tool}.{self.action}"

    @property
    def host(self) -> str | None:
        if self.target and "://" in self.target:
            return urlsplit(self.target).hostname
        return None


Verdict = Literal["allow", "deny", "ask"]


class Decision(Data):
    verdict: Verdict
    by: Literal["rule", "mode", "person", "stop", "plan"]
    reason: str = ""
    # The plan's word on an asked call: `update_plan`, or "Not in the plan: …" (the sheet
    # shows it; a denial then tells Claude to propose another plan rather than retry).
    plan: str = ""


# What an Always-allow rule saved without a risk cap covers: changes, never more.
DEFAULT_CAP = Risk.CHANGE


class RuleScope(Data, frozen=True):
    """What one rule covers: a tool (all its actions, or one), any site or one, and for
    Always allow, the highest risk it lets through without asking.

    Saved as its key: ``tool``, ``tool.action``, ``tool.action@site``, each optionally
    followed by ``^risk`` (e.g. ``browser.left_click@shop.example^change``).
    """

    tool: str
    action: str | None = None
    site: str | None = None
    up_to: Risk | None = None

    @classmethod
    def parse(cls, key: str) -> RuleScope:
        rest, _, cap = key.partition("^")
        rest, _, site = rest.partition("@")
        tool, _, action = rest.partition(".")
        return cls(
            tool=tool,
            action=action or None,
            site=site.lower() or None,
            up_to=Risk(cap) if cap in Risk.__members__.values() else None,
        )

    @classmethod
    def of(cls, call: ToolCall, *, site: bool = True) -> RuleScope:
        """The narrowest scope for "Always allow" on this call: its action, its site, its risk."""
        return cls(
            tool=call.tool, action=call.action, site=call.host if site else None, up_to=call.risk
        )

    @property
    def key(self) -> str:
        key = self.tool + (f".{self.action}" if self.action else "")
        key += f"@{self.site}" if self.site else ""
        return key + (f"^{self.up_to.value}" if self.up_to else "")

    @property
    def cap(self) -> Risk:
        return self.up_to or DEFAULT_CAP

    def matches(self, call: ToolCall) -> bool:
        return (
            self.tool == call.tool
            and self.action in (None, call.action)
            and (self.site is None or self.site == (call.host or "").lower())
        )

    def covers(self, risk: Risk) -> bool:
        return not risk.above(self.cap)

    @property
    def specificity(self) -> tuple[bool, bool]:
        return (self.site is not None, self.action is not None)


def matching_rules(call: ToolCall, rules: dict[str, Rule]) -> list[tuple[RuleScope, Rule]]:
    found = [(RuleScope.parse(key), rule) for key, rule in rules.items()]
    return [(scope, rule) for scope, rule in found if scope.matches(call)]


def never_rule(call: ToolCall, rules: dict[str, Rule]) -> RuleScope | None:
    """A Never rule that covers the call: it wins over everything, and decides before any work."""
    return next((s for s, rule in matching_rules(call, rules) if rule is Rule.NEVER), None)


def rule_for(call: ToolCall, rules: dict[str, Rule]) -> Rule | None:
    """The rule that decides the call: any Never; else the most specific Ask or Always allow
    (site before action before the whole tool; Ask before Always allow), where Always allow
    counts only up to the risk it covers."""
    if never_rule(call, rules) is not None:
        return Rule.NEVER
    candidates = [
        (scope.specificity, rule is Rule.ASK, rule)
        for scope, rule in matching_rules(call, rules)
        if rule is Rule.ASK or scope.covers(call.risk)
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda found: (found[0], found[1]))[2]


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


RISK_COVERS = {
    Risk.READ: "that only look",
    Risk.CHANGE: "that change things",
    Risk.CONSEQUENTIAL: "of every kind, including ones that send, delete, pay or run code",
}


def scope_sentence(scope: RuleScope, label: str = "") -> str:
    """What an Always-allow rule will cover, in words (the sheet and the Permissions page)."""
    name = f"{scope.tool}.{scope.action}" if scope.action else scope.tool
    what = f"“{label or name}”"
    where = f" on {scope.site}" if scope.site else ""
    text = f"Always allow {what} actions {RISK_COVERS[scope.cap]}{where}."
    if scope.cap is not Risk.CONSEQUENTIAL:
        text += " Anything riskier (buying, sending, deleting) will still ask."
    return text


class Answer(Data):
    allow: bool
    always: bool = False  # remember "Always allow" for this action
    reason: str = ""  # the person's optional reason for a denial
    # Who settled it: the person, or, where a question went elsewhere (the window, over the
    # command-line socket), a Never rule there, no one to ask, or a question cut off. Only the
    # person's answer can allow.
    by: Literal["person", "rule", "mode", "stop"] = "person"
    # For a plan: the sites and apps the person kept (None: all that were proposed).
    keep: list[str] | None = None


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
