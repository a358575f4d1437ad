"""One `deskhand ui` action through the pipeline: the `screen` tool's source describes it, a Never
rule refuses it before any work, the gate decides (and asks, where someone can answer), the audit
log keeps it, and the result becomes the command's `Result`.

Shared by the running app's socket (`listener.py`) and the command on its own when no app runs
(`alone.py`), so both take the same path with the same rules. The tool is wrapped for the one
action (`Recorded`), so its outcome's plain values (`ToolResult.data`) reach the command beside
the text the model would read; every refusal carries its code (`answers.py`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import sys
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.calls.contract import CallResult, ToolUse
from desktop.calls.gate import Gate
from desktop.calls.gated import run_gated
from desktop.calls.permissions import NO_APPROVER, Decision, ToolCall
from desktop.calls.sources.function_tools import FunctionTools
from desktop.command.protocol import Image, Request, Result
from tools.base import (
    BAD_INPUT,
    ActionInfo,
    FunctionTool,
    InvalidInput,
    Risk,
    RunContext,
    ToolImage,
    ToolRegistry,
    ToolResult,
)

if TYPE_CHECKING:
    from tools.screen.a11y.accessible import AccessibilityStatus
    from tools.screen.backends.base import ScreenStatus

__all__ = ["NEVER", "NOT_OFFERED", "UI_SESSION", "Recorded", "run_action", "why_unavailable"]

UI_SESSION = -1  # the chat id of actions from the command line (audit rows, snapshots)
NOT_OFFERED = (
    "Deskhand cannot read the screen's elements now: the screen is off in Settings, or this "
    "computer's accessibility service does not answer (`deskhand doctor` says which)."
)
NEVER = "Refused: Settings → Permissions sets “{label}” to Never."
SCREEN_OFF = (
    "Refused: Screen control is off in Deskhand → Settings → Screen, so nothing on the screen "
    "is read or used. Turn it on there to use `deskhand ui`."
)

Notify = Callable[[str, str], Awaitable[None]]  # ("asking" | "answered", summary)
Unavailable = Callable[[], "Result"]


class Recorded(FunctionTool[Any]):
    """One tool for one action: everything is the tool's own, and the data of what it answered
    (its refusal before the gate, or its result) is kept for the command."""

    def __init__(self, tool: FunctionTool[Any]) -> None:
        self.tool = tool
        self.name, self.title, self.description = tool.name, tool.title, tool.description
        self.data: dict[str, Any] | None = None

    def input_schema(self) -> dict[str, Any]:
        return self.tool.input_schema()

    def validate(self, raw: dict[str, Any], session_id: int = 0) -> Any:
        return self.tool.validate(raw, session_id)

    def risk(self, call: Any) -> tuple[Risk, str]:
        return self.tool.risk(call)

    def action(self, call: Any) -> str:
        return self.tool.action(call)

    def summary(self, call: Any) -> str:
        return self.tool.summary(call)

    def target(self, call: Any) -> str | None:
        return self.tool.target(call)

    def offered(self) -> bool:
        return self.tool.offered()

    def actions(self) -> list[ActionInfo]:
        return self.tool.actions()

    async def prepare(self, call: Any) -> Any:
        prepared = await self.tool.prepare(call)
        if isinstance(prepared, ToolResult):  # refused before anyone is asked
            self.data = prepared.data
        return prepared

    async def run(self, call: Any, ctx: RunContext) -> ToolResult:
        result = await self.tool.run(call, ctx)
        self.data = result.data
        return result


def not_offered() -> Result:
    return Result(ok=False, error=NOT_OFFERED, code="unavailable")


def why_unavailable(
    *, enabled: bool, screen: ScreenStatus | None, elements: AccessibilityStatus | None
) -> Result:
    """Why the `screen` tool is not offered, in words and as a code: off in Settings, no
    display (a missing permission on a Mac), or no accessibility service."""
    mac = sys.platform == "darwin"
    if not enabled:
        return Result(ok=False, error=SCREEN_OFF, code="refused")
    if screen is not None and not screen.available:
        words = f"{screen.reason} {screen.fix}".strip()
        return Result(ok=False, error=words, code="needs_permission" if mac else "no_display")
    if elements is not None and not elements.available:
        words = f"{elements.reason} {elements.fix}".strip()
        return Result(ok=False, error=words, code="needs_permission" if mac else "unavailable")
    return not_offered()


async def _quiet(_event: str, _summary: str) -> None:
    return None


async def run_action(
    request: Request,
    registry: ToolRegistry,
    gate: Gate,
    attachments_dir: Path,
    *,
    needs_approval: str,
    notify: Notify = _quiet,
    hung_up: Callable[[], Awaitable[object]] | None = None,
    ask_first: bool = True,
    unavailable: Unavailable = not_offered,
) -> Result | None:
    """The action's result; None when the command gave up first (what `hung_up()` returns
    finished; made only once the action starts, so an early refusal leaves nothing unawaited).

    `needs_approval` is what the person reads when the gate had no one to ask. With
    `ask_first=False` (no one could answer), a call the gate would ask about is refused as soon
    as it is described, before the tool looks anything up. `unavailable()` says why the tool is
    not offered, when it is not.
    """
    use = ToolUse(id=f"ui_{uuid.uuid4().hex[:20]}", name=request.tool, input=request.input)
    found = registry.get(request.tool)
    if found is None or not found.offered():
        return unavailable()
    tool = Recorded(found)
    source = FunctionTools(ToolRegistry([tool]))
    try:
        call = await source.describe(use, UI_SESSION)
    except InvalidInput:
        return Result(ok=False, error=BAD_INPUT, code="bad_input")

    async def check(asked: ToolCall, approved: ToolCall | None) -> tuple[Decision, int]:
        asking = gate.will_ask(asked, approved) and gate.approvals.has_viewer
        if asking:
            await notify("asking", asked.summary)
        decided = await gate.check(asked, approved=approved)
        if asking:
            await notify("answered", "")
        return decided

    running = asyncio.ensure_future(
        run_gated(
            use,
            call,
            source,
            gate=gate,
            session_id=UI_SESSION,
            attachments_dir=attachments_dir,
            check=check,
            can_ask=ask_first,
        )
    )
    waiting: set[asyncio.Future[object]] = {running}  # type: ignore[arg-type]
    given_up = asyncio.ensure_future(hung_up()) if hung_up is not None else None
    if given_up is not None:
        waiting.add(given_up)
    try:
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not running.done():
            running.cancel()  # the source's context is told it is cancelled
            with contextlib.suppress(BaseException):
                await running
        if given_up is not None:
            given_up.cancel()
    if running.cancelled():
        return None
    settled = running.result()
    decision = settled.decision
    if decision is not None and decision.verdict == "deny":
        if decision.by == "mode" and decision.reason == NO_APPROVER:
            return Result(
                ok=False, error=needs_approval.format(label=call.label), code="needs_permission"
            )
        if decision.by == "rule":
            return Result(ok=False, error=NEVER.format(label=call.label), code="refused")
        if decision.by == "person":
            because = f" ({decision.reason})" if decision.reason else ""
            return Result(
                ok=False, error=f"You said no in Deskhand's window{because}.", code="refused"
            )
    result = await as_result(settled.result)
    data = tool.data or {}
    if result.ok:
        return result.model_copy(update={"data": tool.data})
    return result.model_copy(update={"data": data, "code": str(data.get("code") or "failed")})


async def as_result(result: CallResult) -> Result:
    images = [
        Image(
            media_type=item.media_type,
            width=item.width,
            height=item.height,
            data=base64.b64encode(item.data).decode("ascii"),
        )
        for item in result.content
        if isinstance(item, ToolImage)
    ]
    text = result.text()
    if result.is_error:
        first = text.splitlines()[0] if text else "Failed."
        return Result(ok=False, text=text, error=first, outcome=result.outcome)
    return Result(ok=True, text=text, images=images, outcome=result.outcome)
