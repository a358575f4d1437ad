"""How a Mac tool runs one action: stoppable by the person, and failures told in fixed phrases.

Shared by the macos, apps and tabs tools, so each only says what its actions do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from tools.base import TOOL_FAILED, RunContext, ToolResult
from tools.mac.osa.errors import OsaError, OsaProblem

log = logging.getLogger(__name__)

STOPPED = "The person stopped this action before it finished. It may or may not have taken effect."


async def run_until_stopped(work: Awaitable[ToolResult], ctx: RunContext) -> ToolResult:
    """Run `work` until it finishes or the person stops it (then it is cancelled)."""
    task = asyncio.ensure_future(work)
    stop = asyncio.ensure_future(ctx.cancelled.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        if not task.done():
            task.cancel()  # the engine kills the script's process (group)
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        return ToolResult.failure(STOPPED)
    return task.result()


async def reporting_failures(
    work: Awaitable[ToolResult],
    ctx: RunContext,
    *,
    on_problem: Callable[[OsaProblem], None] | None,
    what: str,
) -> ToolResult:
    """`work`'s result; a classified problem goes to the person (progress and `on_problem`)
    and its fixed phrase to the model; anything else is logged and answered generically."""
    try:
        return await work
    except OsaError as exc:
        found = exc.problem
        ctx.progress(found.for_person)
        if on_problem is not None:
            try:
                on_problem(found)
            except Exception:
                log.exception("on_problem callback failed")
        return ToolResult.failure(found.model_phrase)
    except Exception:
        log.exception("%s failed", what)
        return ToolResult.failure(TOOL_FAILED)


async def run_action(
    work: Awaitable[ToolResult],
    ctx: RunContext,
    *,
    on_problem: Callable[[OsaProblem], None] | None,
    what: str,
) -> ToolResult:
    """Both of the above: what every Mac tool's `run` does."""
    return await run_until_stopped(
        reporting_failures(work, ctx, on_problem=on_problem, what=what), ctx
    )
