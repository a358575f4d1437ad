"""Small real tools for tests, one per risk level, each with a side effect a test can observe."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from tools.base import ActionInfo, Risk, RunContext, Tool, ToolImage, ToolResult


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
