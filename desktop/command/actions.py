"""One `deskhand ui` action through the pipeline: the `screen` tool's source describes it, a Never
rule refuses it before any work, the gate decides (and asks, where someone can answer), the audit
log keeps it, and the result becomes the command's `Result`.

Shared by the running app's socket (`listener.py`) and the command on its own when no app runs
(`alone.py`), so both take the same path with the same rules.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from desktop.calls.contract import CallResult, ToolUse
from desktop.calls.gate import Gate
from desktop.calls.gated import run_gated
from desktop.calls.permissions import NO_APPROVER, Decision, ToolCall
from desktop.calls.sources.function_tools import FunctionTools
from desktop.command.protocol import Image, Request, Result
from tools.base import BAD_INPUT, InvalidInput, ToolImage

__all__ = ["NEVER", "NOT_OFFERED", "UI_SESSION", "run_action"]

UI_SESSION = -1  # the chat id of actions from the command line (audit rows, snapshots)
NOT_OFFERED = (
    "Deskhand cannot read the screen's elements now: the screen is off in Settings, or this "
    "computer's accessibility service does not answer (`deskhand doctor` says which)."
)
NEVER = "Refused: Settings → Permissions sets “{label}” to Never."

Notify = Callable[[str, str], Awaitable[None]]  # ("asking" | "answered", summary)


async def _quiet(_event: str, _summary: str) -> None:
    return None


async def run_action(
    request: Request,
    source: FunctionTools,
    gate: Gate,
    attachments_dir: Path,
    *,
    needs_approval: str,
    notify: Notify = _quiet,
    hung_up: Callable[[], Awaitable[object]] | None = None,
    ask_first: bool = True,
) -> Result | None:
    """The action's result; None when the command gave up first (what `hung_up()` returns
    finished; made only once the action starts, so an early refusal leaves nothing unawaited).

    `needs_approval` is what the person reads when the gate had no one to ask. With
    `ask_first=False` (no one could answer), a call the gate would ask about is refused as soon
    as it is described, before the tool looks anything up.
    """
    use = ToolUse(id=f"ui_{uuid.uuid4().hex[:20]}", name=request.tool, input=request.input)
    tool = source.registry.get(request.tool)
    if tool is None or not tool.offered():
        return Result(ok=False, error=NOT_OFFERED)
    try:
        call = await source.describe(use, UI_SESSION)
    except InvalidInput:
        return Result(ok=False, error=BAD_INPUT)

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
            return Result(ok=False, error=needs_approval.format(label=call.label))
        if decision.by == "rule":
            return Result(ok=False, error=NEVER.format(label=call.label))
        if decision.by == "person":
            because = f" ({decision.reason})" if decision.reason else ""
            return Result(ok=False, error=f"You said no in Deskhand's window{because}.")
    return await as_result(settled.result)


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
        return Result(ok=False, text=text, error=text.splitlines()[0] if text else "Failed.")
    return Result(ok=True, text=text, images=images)
