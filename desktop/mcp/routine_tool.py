"""`deskhand mcp`'s `run_routine`: an MCP client runs one of the person's routines in the app.

It is a function tool like the others the server offers, so a call takes their path: described,
settled by a Never rule, then asked about (through the window's sheet, naming the client, or the
client's elicitation) and audited. It is consequential: running a routine acts on the person's
behalf, so it asks in every mode unless the person set "Routines: run" to Always allow. Once
allowed, the running app runs it (`desktop/command/routine_run.py`, the same request as
`deskhand routine run`, starting the app when none runs): in its chat "▶ NAME", where each step
passes the app's plan sheet and gate as in any chat. The result is the run's report
(`deskhand.routine.run/1`) as JSON; a run that could not start says why, in one line.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pydantic import BaseModel, Field

from tools.base import ActionInfo, Risk, RunContext, Tool, ToolResult

__all__ = ["RunRoutine"]

NAME = "run_routine"
DESCRIPTION = (
    "Run one of the person's saved Deskhand routines (a task they did once, saved to be done "
    "again) in the Deskhand app, and wait for its end. `params` gives values for the "
    "routine's parameters; the others keep their defaults. Returns the run's report as JSON "
    "(deskhand.routine.run/1): status done, failed, stopped or waiting, each step, and the "
    "answer. The person approves the run, and the routine's plan, in Deskhand."
)
RISK_REASON = "Runs a saved routine's steps on this computer, on the person's behalf"


class RunRoutineInput(BaseModel):
    name: str = Field(min_length=1, max_length=80, description="The routine's name.")
    params: dict[str, str] = Field(
        default_factory=dict,
        description="Values for the routine's parameters, by name (the others keep their default).",
    )


class RunRoutine(Tool[RunRoutineInput]):
    """Runs a routine in the app on the same data dir (started when none runs)."""

    name = NAME
    title = "Routines"
    description = DESCRIPTION
    Input = RunRoutineInput

    def __init__(self, data_dir: Path | None) -> None:
        self.data_dir = data_dir  # as given to `deskhand mcp`: the app is started with the same

    def risk(self, call: RunRoutineInput) -> tuple[Risk, str]:
        return Risk.CONSEQUENTIAL, RISK_REASON

    def action(self, call: RunRoutineInput) -> str:
        return "run"

    def actions(self) -> list[ActionInfo]:
        return [ActionInfo(name="run", risk=Risk.CONSEQUENTIAL, description="Run a routine")]

    def summary(self, call: RunRoutineInput) -> str:
        given = ", ".join(f"{name} = “{value}”" for name, value in call.params.items())
        return f"Run the routine “{call.name}”" + (f" with {given}" if given else "")

    async def run(self, call: RunRoutineInput, ctx: RunContext) -> ToolResult:
        from desktop.command.client import Failure
        from desktop.command.routine_run import AppRun

        loop = asyncio.get_running_loop()
        running = AppRun(self.data_dir, call.name, dict(call.params), by="mcp")

        def told(what: str, summary: str, _chat_id: int | None) -> None:
            lines = {
                "starting": "Starting Deskhand…",
                "started": f"Running in “{summary}”…",
                "asking": f"Waiting for the person in Deskhand's window: {summary}",
            }
            line = lines.get(what, summary)
            loop.call_soon_threadsafe(ctx.progress, line)

        def whole() -> dict[str, object]:
            running.start(told)
            return running.wait(told)

        waiting = asyncio.ensure_future(asyncio.to_thread(whole))
        try:
            report = await asyncio.shield(waiting)
        except asyncio.CancelledError:
            running.stop()  # the app stops the run; the thread reads its report and ends
            raise
        except Failure as failure:
            return ToolResult.failure(f"The routine did not run: {failure}")
        text = json.dumps(report, ensure_ascii=False)
        return ToolResult(text=text, is_error=report.get("ok") is not True)
