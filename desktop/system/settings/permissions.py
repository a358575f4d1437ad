"""The person's permission settings: the mode, the per-action rules, how long a plan lasts.

They are part of the settings file (signed, see `signed`); what a call's risk and
these settings decide is `desktop.calls.permissions`.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from tools.data import Data


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


class PermissionSettings(Data):
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
    plan_minutes: int = Field(
        60,
        ge=5,
        le=24 * 60,
        title="A plan lasts",
        description="Minutes an approved plan lets Claude act on its sites and apps unasked.",
    )
