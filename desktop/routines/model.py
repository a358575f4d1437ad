"""A routine as data: the `deskhand.routine/1` file, one per routine, and what a run reports.

A routine keeps what the person's finished task did, not what the model said: its task (the
first message), the plan it needed, the parameters its typed texts became, and its steps. Each
step keeps its source and member, its target by meaning (`tools/meaning.py`: the browser's
role, name, nearest heading or landmark and page; the screen's app, window, role and name; a
Mac app's action and arguments are its input), its input with ``{{param}}`` where a parameter
goes, and the `Effect:` lines it had. A run (`RunReport`, `deskhand.routine.run/1`) says how
it went.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from tools.data import Data
from tools.meaning import TargetMeaning
from tools.outcome import OutcomeKind

SCHEMA = "deskhand.routine/1"
RUN_SCHEMA = "deskhand.routine.run/1"
# A routine's name is its file's name: letters, digits, spaces, dots, dashes and underscores.
NAME_PATTERN = r"^[\w][\w .\-]{0,79}$"
PARAM_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,39}$"
PLACEHOLDER = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]{0,39})\}\}")

RunStatus = Literal["done", "failed", "stopped", "waiting"]


class Parameter(Data):
    """A typed text the person can change per run; the recorded text is its default."""

    name: str = Field(pattern=PARAM_PATTERN)
    default: str = ""


class RoutinePlan(Data):
    """The sites and apps the routine needs: shown on the plan sheet once per run."""

    domains: list[str] = Field(default_factory=list)
    apps: list[str] = Field(default_factory=list)
    approach: list[str] = Field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.domains and not self.apps


class Step(Data):
    """One recorded call, replayable without the model."""

    model_config = ConfigDict(extra="forbid")

    source: str  # who answers it: "browser", "computer", "macos", "tabs", "mcp", ...
    member: str  # the call's tool name, or the toolset's member ("left_click")
    toolset_name: str | None = None  # set for SDK toolset members
    words: str = ""  # the card's own words: "Click 'Install' (link) on docs.example"
    target: TargetMeaning | None = None  # by meaning; None where the input says it all
    input: dict[str, Any] = Field(default_factory=dict)  # with {{param}} where one goes
    effect: list[str] = Field(default_factory=list)  # the `Effect:` lines it had
    outcome: OutcomeKind | None = None  # what it really did (None: a read)
    reads: bool = False  # it only looked

    def placeholders(self) -> set[str]:
        """The parameters its input uses."""
        return set(PLACEHOLDER.findall(_text_of(self.input)))


class Routine(Data):
    """One routine file's content (`routines/NAME.json`)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["deskhand.routine/1"] = Field(default="deskhand.routine/1", alias="schema")
    name: str = Field(pattern=NAME_PATTERN)
    task: str  # the chat's first message
    parameters: list[Parameter] = Field(default_factory=list)
    plan: RoutinePlan = Field(default_factory=RoutinePlan)
    answer: bool = True  # ends with Claude's answer (one request), else the last read's text
    steps: list[Step] = Field(min_length=1)
    created_at: str = ""  # ISO 8601, local time with its offset
    updated_at: str = ""
    from_chat: int | None = None  # the chat it was saved from, when it was

    @field_validator("parameters")
    @classmethod
    def _unique_parameters(cls, parameters: list[Parameter]) -> list[Parameter]:
        names = [parameter.name for parameter in parameters]
        if len(set(names)) != len(names):
            raise ValueError("parameter names must differ")
        return parameters

    def document(self) -> dict[str, Any]:
        """The file's JSON (what `save --json` and `show --json` print)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class StepReport(Data):
    """How one step of a run went."""

    index: int  # 1-based, in the routine's steps
    words: str
    status: Literal["replayed", "healed", "failed", "skipped", "stopped", "waiting"]
    why: str = ""  # for a heal or a failure: what did not match
    effect: list[str] = Field(default_factory=list)


class RunReport(Data):
    """`deskhand.routine.run/1`: how a run ended."""

    schema_: Literal["deskhand.routine.run/1"] = Field(
        default="deskhand.routine.run/1", alias="schema"
    )
    ok: bool
    status: RunStatus
    name: str = ""
    chat_id: int | None = None
    steps: list[StepReport] = Field(default_factory=list)
    replayed: int = 0  # steps done without the model
    healed: int = 0  # steps the model did again
    model_requests: int = 0  # every request this run sent (heals and the answer)
    seconds: float = 0.0
    answer: str = ""  # the answer, or the last read's text
    error: str = ""  # why it failed or stopped, for the person
    update_offered: bool = False  # it healed: Update routine would write the healed steps

    def document(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


def plan_input(routine: Routine) -> dict[str, Any] | None:
    """The `update_plan` a run of `routine` proposes, or None: a plan names sites, and apps
    alone are judged by the mode."""
    if not routine.plan.domains:
        return None
    plan = routine.plan.model_dump(exclude_none=True)
    plan["approach"] = plan["approach"] or [f"Run the routine {routine.name}"]
    return plan


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(_text_of(item) for item in value.values())
    if isinstance(value, list):
        return " ".join(_text_of(item) for item in value)
    return ""


def fill(value: Any, values: dict[str, str]) -> Any:
    """`value` with each ``{{name}}`` replaced by its value (in every string, at any depth)."""
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(0)), value)
    if isinstance(value, dict):
        return {key: fill(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [fill(item, values) for item in value]
    return value
