"""SDK toolsets (the browser, the screen) as tool sources: what both families share.

A call is described once, before it runs: the toolset driver judges it from what it will
really affect (`ToolsetDriver.judge`, on the confirm context the SDK would build for it: the
element a click lands on, the page it acts on), and that description is the card's, the
gate's and the approval sheet's. The SDK then validates the call, runs its own policies and
asks its `confirm` callable, where this source puts that same description to the pipeline's
gate; a denial raises the SDK's `ToolError`, so the model reads our fixed phrase and the
person's reason. A call the driver refused because what it acts on changed after that
description says so in its result (`CallResult.changed`), and the pipeline describes it again
and asks again.

A family subclasses `ToolsetSource` with its driver per chat (`toolset`), its members, and
what it adds after a call (`after_call`).
"""

from __future__ import annotations

import functools
import logging
from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from desktop.calls import contract
from desktop.calls.gate import denial_text
from desktop.calls.permissions import ToolCall
from tools.base import ActionInfo, Risk
from tools.meaning import Found, TargetMeaning

if TYPE_CHECKING:
    from tools.toolset_driver import ToolsetDriver

log = logging.getLogger(__name__)

Confirm = Callable[[Any], Awaitable[bool]]
JUDGED_KEPT = 64  # descriptions of calls that never ran (refused first) are dropped after this
NOT_OFFERED = "This tool is not available now. Tell the person; it may be turned off in Settings."
NOT_JUDGED = (
    "Deskhand could not tell what this action would affect, so it did not run it. Look again "
    "(a screenshot or a read), then try once more."
)


class ToolsetSource(contract.ToolSource):
    """The source of one SDK toolset family: one driver per chat, described once per call."""

    title: str  # the cards' label prefix ("Browser"); `name` is the `toolset_name`

    def __init__(self) -> None:
        self._confirms: dict[int, Confirm] = {}
        # The calls running now, by tool_use id: their context and their one description.
        self._running: dict[str, tuple[contract.CallContext, ToolCall]] = {}
        # Calls whose description the driver judged (the rest could not be parsed).
        self._judged: OrderedDict[str, None] = OrderedDict()

    @abstractmethod
    def toolset_for(self, session_id: int, confirm: Confirm) -> ToolsetDriver:
        """The chat's driver; built lazily, and kept while `confirm` stays the same."""

    @abstractmethod
    def members(self) -> list[ActionInfo]:
        """Every member the model can call now, with its usual risk."""

    def available(self) -> bool:
        """Whether the toolset is offered now."""
        return True

    def landing(self, member: str, input: Mapping[str, Any], page: str | None) -> str | None:
        """Where a call lands (rules for a site are checked there)."""
        return page

    def after_call(self, session_id: int) -> tuple[list[str], list[str]]:
        """After each call: what the person should know, and hosts they may let through."""
        return [], []

    async def before_call(self, session_id: int) -> str | None:
        """Before each call: wait while the person has the controls (Take over); then a note
        when they had them, and the call is not done (the model reads the note instead)."""
        return None

    async def find_again(self, session_id: int, meaning: TargetMeaning, *, within: float) -> Found:
        """Where `meaning` is now in the chat's page or screen (a routine's step looks for its
        target so, without the model); not found when the toolset is not offered."""
        if not self.available():
            return Found(why=f"{self.title} is turned off in Settings.")
        return await self.toolset(session_id).find_again(meaning, within=within)

    def toolset(self, session_id: int) -> ToolsetDriver:
        # A family caches a driver per (session, confirm): keep one confirm per session.
        confirm = self._confirms.setdefault(
            session_id, functools.partial(self._confirm, session_id)
        )
        return self.toolset_for(session_id, confirm)

    def api_tools(self) -> list[dict[str, Any]]:
        if not self.available():
            return []
        return [dict(self.toolset(0).to_dict())]  # type: ignore[attr-defined]

    def handles(self, use: contract.ToolUse) -> bool:
        # A call for a toolset no longer offered is still answered here, as a refusal.
        return use.toolset_name == self.name

    def label(self, use: contract.ToolUse) -> str:
        return contract.tool_label(self.title, use.name)

    def call_source(self, use: contract.ToolUse) -> contract.CallSource:
        return contract.CallSource(name=self.name, title=self.title)

    async def describe(self, use: contract.ToolUse, session_id: int) -> ToolCall:
        call = ToolCall(
            session_id=session_id,
            tool_use_id=use.id,
            tool=self.name,
            action=use.name,
            label=self.label(use),
            input=use.arguments,
            risk=Risk.CONSEQUENTIAL,
            reason="",
            summary=contract.input_line(use.arguments),
            target=self.landing(use.name, use.arguments, None),
        )
        self._judged.pop(use.id, None)
        if not self.available():
            return call
        from anthropic.types.beta import BetaToolUseBlock  # loaded with the toolset

        toolset = self.toolset(session_id)
        try:
            context = toolset.context_of(BetaToolUseBlock.model_validate(use.block()))
            if context is None:  # the SDK refuses the input, with what to fix, before asking
                return call
            judged = await toolset.judge(context)
        except Exception:  # nothing judged: the call is described, and refused if it runs
            log.exception("%s could not judge %s", self.name, use.name)
            return call
        self._judged[use.id] = None
        while len(self._judged) > JUDGED_KEPT:
            self._judged.popitem(last=False)
        return call.model_copy(
            update={
                "risk": judged.risk,
                "reason": judged.reason,
                "summary": judged.summary,
                "target": self.landing(use.name, use.arguments, judged.page),
                "lands": judged.lands,
                "meaning": judged.meaning,
            }
        )

    async def run(
        self, use: contract.ToolUse, call: ToolCall, ctx: contract.CallContext
    ) -> contract.CallResult:
        if not self.available():
            return contract.CallResult.failure(NOT_OFFERED)
        note = await self.before_call(ctx.session_id)
        if note is not None:
            return contract.CallResult.failure(note)
        from anthropic.types.beta import BetaToolUseBlock  # loaded with the toolset

        toolset = self.toolset(ctx.session_id)
        self._running[use.id] = (ctx, call)
        try:
            run = await toolset.run(
                BetaToolUseBlock.model_validate(use.block()), progress=ctx.progress
            )
        finally:
            self._running.pop(use.id, None)
            self._judged.pop(use.id, None)
            notices, offers = self.after_call(ctx.session_id)
        result = contract.CallResult.of_block(run.block)
        changed = result.is_error and run.changed
        return result.model_copy(
            update={
                "notices": notices,
                "offers": offers,
                "changed": changed,
                "outcome": run.outcome,
            }
        )

    async def _confirm(self, session_id: int, context: Any) -> bool:
        """The SDK's confirm: the call's one description goes to the gate; a denial is a
        ToolError the model reads."""
        use_id = getattr(getattr(context, "tool_use", None), "id", None)
        running = self._running.get(use_id) if isinstance(use_id, str) else None
        if running is None:  # nothing to attribute the action to: never approved
            return False
        if use_id not in self._judged:  # nothing judged to show the person: not run
            from anthropic.tools import ToolError

            raise ToolError(NOT_JUDGED)
        ctx, call = running
        decision = await ctx.approve(call)
        if decision.verdict != "allow":
            from anthropic.tools import ToolError  # the toolset that asks has loaded the SDK

            raise ToolError(denial_text(decision))
        if decision.by == "person":
            self.toolset(session_id).person_answered()
        return True

    def action_groups(self) -> list[contract.ActionGroup]:
        return [contract.ActionGroup(tool=self.name, title=self.title, actions=self.members())]

    async def close_session(self, session_id: int) -> None:
        self._confirms.pop(session_id, None)
