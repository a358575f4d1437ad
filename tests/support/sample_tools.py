"""Small real tools for tests, one per risk level, each with a side effect a test can observe;
`FieldTool` reports what it really did (an `Outcome`), as the real sources do."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from tools.base import ActionInfo, Risk, RunContext, Tool, ToolImage, ToolResult
from tools.outcome import Outcome


class NoteInput(BaseModel):
    text: str


class NotebookTool(Tool[NoteInput]):
    """Appends a line to an in-memory notebook; the notebook is the observable side effect."""

    name = "notebook"
    title = "Notebook"
    description = "Write a line into the notebook."
    Input = NoteInput

    def __init__(
        self, risk: Risk = Risk.CHANGE, delay: float = 0.0, image: ToolImage | None = None
    ) -> None:
        self.lines: list[str] = []
        self._risk = risk
        self.delay = delay
        self.image = image
        self.started = asyncio.Event()

    def risk(self, call: NoteInput) -> tuple[Risk, str]:
        return self._risk, "Writes into the notebook"

    def action(self, call: NoteInput) -> str:
        return "write"

    def actions(self) -> list[ActionInfo]:
        return [ActionInfo(name="write", risk=self._risk, description="Write a line")]

    def summary(self, call: NoteInput) -> str:
        return f"Notebook: write {call.text!r}"

    async def run(self, call: NoteInput, ctx: RunContext) -> ToolResult:
        self.started.set()
        ctx.progress(f"writing {len(call.text)} characters")
        if self.delay:
            await asyncio.sleep(self.delay)
        self.lines.append(call.text)
        return ToolResult(
            text=f"Wrote line {len(self.lines)}.", images=[self.image] if self.image else []
        )


class FieldInput(BaseModel):
    text: str


class FieldTool(Tool[FieldInput]):
    """A text field that may not hold what is typed (a mask that strips digits, a read-only
    field), read back after each call: it reports what it really holds as an `Outcome`, the
    way the browser and the screen do, with the `Effect:` lines in its text. The field's value
    is the observable side effect. A secret field reports `(hidden)`, never its value."""

    name = "field"
    title = "Field"
    description = "Type text into the field."
    Input = FieldInput

    def __init__(
        self,
        label: str = "Name",
        *,
        strip_digits: bool = False,
        read_only: bool = False,
        secret: bool = False,
        checks: bool = True,
    ) -> None:
        self.label = label
        self.value = ""
        self.strip_digits = strip_digits
        self.read_only = read_only
        self.secret = secret
        self.checks = checks  # False: says only its own word, as a tool that cannot look

    def risk(self, call: FieldInput) -> tuple[Risk, str]:
        return Risk.CHANGE, "Types into the field"

    def action(self, call: FieldInput) -> str:
        return "type"

    def actions(self) -> list[ActionInfo]:
        return [ActionInfo(name="type", risk=Risk.CHANGE, description="Type text")]

    def summary(self, call: FieldInput) -> str:
        return f"Field: type into {self.label}"

    def _shown(self, value: str) -> str:
        return "(hidden)" if self.secret else f'"{value}"'

    async def run(self, call: FieldInput, ctx: RunContext) -> ToolResult:
        before = self.value
        if not self.read_only:
            kept = (
                "".join(c for c in call.text if not c.isdigit()) if self.strip_digits else call.text
            )
            self.value = kept
        if not self.checks:
            return ToolResult(text="Typed.")
        changes = []
        if self.value != before:
            changes.append(
                f'~ textbox "{self.label}": {self._shown(before)} → {self._shown(self.value)}'
            )
        if self.value == call.text:
            outcome = Outcome(kind="done", changes=changes)
        elif not changes:
            outcome = Outcome(kind="no_effect")
        else:
            note = f"The field holds {self._shown(self.value)}, not the text typed."
            outcome = Outcome(kind="differs", changes=changes, note=note)
        return ToolResult(text=f"Typed.\n{outcome.effect_text()}", outcome=outcome)
