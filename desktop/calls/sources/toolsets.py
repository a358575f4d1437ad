"""SDK toolsets (the browser, later the screen) as tool sources: one class, configured per family.

The SDK toolset validates a member call, runs its own policies, then asks its `confirm`
callable; that is where this source hands the call, as the driver describes it from what
the action will really touch, to the pipeline's gate. A denial raises the SDK's
`ToolError`, so the model reads our fixed phrase and the person's reason. A call the driver
refused because the page changed after that approval says so (`CallResult.changed`), and the
pipeline runs it again: `confirm` describes it on the page as it now is and asks again.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from desktop.calls.gate import denial_text
from desktop.calls.permissions import ToolCall
from desktop.calls.pipeline import ActionGroup, CallContext, CallResult, ToolUse, tool_label
from tools.base import ActionInfo, Risk

if TYPE_CHECKING:
    from anthropic.types.beta import BetaToolUseBlock

Confirm = Callable[[Any], Awaitable[bool]]
NOT_OFFERED = "This tool is not available now. Tell the person; it may be turned off in Settings."


class Toolset(Protocol):
    """What this source needs of an SDK toolset driver (`PlaywrightBrowser`, the screen's)."""

    def to_dict(self) -> Mapping[str, Any]: ...

    async def tool_result(self, tool_use: BetaToolUseBlock) -> Mapping[str, Any]: ...

    def risk(self, member: str, input: Mapping[str, Any]) -> tuple[str, str]: ...

    def summary(self, member: str, input: Mapping[str, Any], url: str | None = None) -> str: ...

    def describe(self, context: Any) -> Any:
        """(risk, reason, summary) of the call `confirm` is asked about, or an awaitable of it."""
        ...


@dataclass(frozen=True)
class ToolsetFamily:
    """How one family of toolset plugs in: everything else is shared."""

    name: str  # the `toolset_name`, and the rules' namespace ("browser.left_click")
    title: str  # the cards' label prefix ("Browser")
    for_session: Callable[[int, Confirm], Toolset]  # one toolset per chat, built lazily
    members: Callable[[], list[ActionInfo]]  # every member with its usual risk
    not_executed: str  # the API's wording for calls skipped after a failure
    close_session: Callable[[int], Awaitable[None]]
    close: Callable[[], Awaitable[None]]
    # Progress lines from inside the driver while a call runs (None: the driver has none).
    progress_scope: Callable[[Callable[[str], None]], AbstractContextManager[None]] | None = None
    # Where a call lands (rules for a site are checked there): (member, input, page URL).
    target: Callable[[str, Mapping[str, Any], str | None], str | None] = (
        lambda _member, _input, page: page
    )
    # Work before the first call, behind the window (the screen looks whether it can be used).
    start: Callable[[], Awaitable[None]] | None = None
    # Whether the toolset is offered now (the screen only where this computer allows it).
    available: Callable[[], bool] = lambda: True
    # After each call: what the person should know (notices) and hosts they may let through.
    after_call: Callable[[int], tuple[list[str], list[str]]] = lambda _session: ([], [])
    # Whether a call of this chat was refused, nothing done, because what it acts on changed
    # after it was described (the pipeline then runs it again: described anew, asked anew).
    changed: Callable[[int, str], bool] = lambda _session, _tool_use_id: False
    # The person answered a question about a call of this chat's toolset, before it acts
    # (the screen then waits for the focus the question took to settle).
    person_answered: Callable[[int], None] = lambda _session: None
    # Before each call of this chat: waits while the person has the controls (Take over), then
    # a note when they had them; the call is then not done and the model reads the note.
    before_call: Callable[[int], Awaitable[str | None]] | None = None


class ToolsetSource:
    """The `ToolSource` of one SDK toolset family."""

    stop_after_failure = True

    def __init__(self, family: ToolsetFamily) -> None:
        self.family = family
        self.name = family.name
        self.not_executed = family.not_executed
        self._confirms: dict[int, Confirm] = {}
        self._running: dict[str, tuple[CallContext, ToolCall]] = {}

    def toolset(self, session_id: int) -> Toolset:
        # A family may cache a toolset per (session, confirm): keep one confirm per session.
        confirm = self._confirms.setdefault(
            session_id, functools.partial(self._confirm, session_id)
        )
        return self.family.for_session(session_id, confirm)

    def api_tools(self) -> list[dict[str, Any]]:
        if not self.family.available():
            return []
        return [dict(self.toolset(0).to_dict())]

    def handles(self, use: ToolUse) -> bool:
        # A call for a toolset no longer offered is still answered here, as a refusal.
        return use.toolset_name == self.family.name

    def label(self, use: ToolUse) -> str:
        return tool_label(self.family.title, use.name)

    def describe(self, use: ToolUse, session_id: int) -> ToolCall:
        toolset = self.toolset(session_id)
        risk, reason = toolset.risk(use.name, use.arguments)
        return ToolCall(
            session_id=session_id,
            tool_use_id=use.id,
            tool=self.family.name,
            action=use.name,
            label=self.label(use),
            input=use.arguments,
            risk=Risk(risk),
            reason=reason,
            summary=toolset.summary(use.name, use.arguments, None),
            target=self.family.target(use.name, use.arguments, None),
        )

    async def run(self, use: ToolUse, call: ToolCall, ctx: CallContext) -> CallResult:
        if not self.family.available():
            return CallResult.failure(NOT_OFFERED)
        if self.family.before_call is not None:
            note = await self.family.before_call(ctx.session_id)
            if note is not None:
                return CallResult.failure(note)
        toolset = self.toolset(ctx.session_id)
        self._running[use.id] = (ctx, call)
        try:
            with self._progress(ctx.progress):
                from anthropic.types.beta import BetaToolUseBlock  # loaded with the toolset

                block = await toolset.tool_result(BetaToolUseBlock.model_validate(use.block()))
        finally:
            self._running.pop(use.id, None)
            notices, offers = self.family.after_call(ctx.session_id)
        result = CallResult.of_block(dict(block))
        changed = result.is_error and self.family.changed(ctx.session_id, use.id)
        return result.model_copy(update={"notices": notices, "offers": offers, "changed": changed})

    def _progress(self, progress: Callable[[str], None]) -> AbstractContextManager[None]:
        scope = self.family.progress_scope
        return scope(progress) if scope is not None else _nothing()

    async def _confirm(self, session_id: int, context: Any) -> bool:
        """The SDK's confirm: the call as it will land goes to the gate; a denial is a ToolError."""
        use = getattr(context, "tool_use", None)
        running = self._running.get(use.id) if use is not None else None
        if running is None:  # nothing to attribute the action to, so nothing to approve
            return False
        ctx, first = running
        described = self.toolset(session_id).describe(context)
        if inspect.isawaitable(described):  # a driver may look at the page to judge the effect
            described = await described
        risk, reason, summary = described
        params = context.input.to_dict() if hasattr(context.input, "to_dict") else {}
        page = getattr(context, "tab_url", None)
        call = first.model_copy(
            update={
                "risk": Risk(risk),
                "reason": reason,
                "summary": summary,
                "target": self.family.target(context.member, params, page),
            }
        )
        decision = await ctx.approve(call)
        if decision.verdict != "allow":
            from anthropic.tools import ToolError  # the toolset that asks has loaded the SDK

            raise ToolError(denial_text(decision))
        if decision.by == "person":
            self.family.person_answered(session_id)
        return True

    def action_groups(self) -> list[ActionGroup]:
        return [
            ActionGroup(
                tool=self.family.name, title=self.family.title, actions=self.family.members()
            )
        ]

    async def start(self) -> None:
        if self.family.start is not None:
            await self.family.start()

    async def close_session(self, session_id: int) -> None:
        self._confirms.pop(session_id, None)
        await self.family.close_session(session_id)

    async def close(self) -> None:
        await self.family.close()


@contextlib.contextmanager
def _nothing() -> Iterator[None]:
    yield
