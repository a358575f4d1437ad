"""A routine's run: each step found again by meaning and run through `run_gated`, the model
asked only for a step that no longer matches, and for the answer.

The run happens in its own chat ("▶ NAME"), as that chat's turn: its cards stream as any
chat's, Stop cancels it, and quitting keeps what ran, marked stopped. Every call goes through
the chat's call runner (`ToolCalls.run_all`), so through `run_gated`: own places, the gate, the
plan, the audit and the card. Nothing here decides whether a call may run.

1. The routine's plan is proposed with `update_plan`, exactly as Claude proposes one: the
   person approves it on the plan sheet, once per run.
2. Each step's target is looked for in the page or window as it is now (`find_again`), waiting
   for it as effects are waited for; the recorded input, its parameters filled, runs with the
   fresh address. Its effect is then compared with the recorded one (`compare.py`).
3. A step whose target is not found (or not found once), that fails, or whose effect differs,
   goes to the model alone: one message carrying the task, the step's intent, its recorded
   target and effect, and the page or window as it is now (a read just before). The model does
   the step with the usual tools, under the same plan and gate; then the replay resumes.
4. When the recorded task ended with Claude's answer, one request (no tools) writes it from what
   this run read; else the run ends with the last read's text.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktop.calls.contract import CARD_KEY, CallCard, ToolUse
from desktop.calls.sources.plan.proposal import NAME as PLAN_TOOL
from desktop.calls.sources.toolsets import ToolsetSource
from desktop.chat.commit import commit
from desktop.chat.events import AgentEvent, MessageStarted, TurnFailed
from desktop.routines.compare import differs
from desktop.routines.model import Routine, RunReport, Step, StepReport, fill, plan_input
from desktop.routines.record import calls_of, record_step, result_text

if TYPE_CHECKING:
    from desktop.chat.agent import Agent
    from desktop.chat.conversations import Conversations
    from desktop.system.store import Store

Emit = Callable[[AgentEvent], None]

STEP_WAIT = 10.0  # seconds a step's target may take to appear, as an action's budget
# Where each toolset addresses the element a member acts on.
ADDRESS_KEYS = {"browser": "target", "computer": "coordinate"}
LOOK_NOW = {
    "browser": ("read_page", {"filter": "interactive"}),
    "computer": ("screenshot", {}),
}
PLAN_DECLINED = "The routine's plan was not approved, so none of its steps ran."
ANSWER_PROMPT = (
    "The routine's steps are done. Write the answer to the task above from what this run's "
    "steps read (their results above). Do not call tools."
)


@dataclass
class RunState:
    """What one run has done so far: its report, and the steps healing replaced."""

    report: RunReport
    started: float = field(default_factory=time.monotonic)
    healed: dict[int, list[Step]] = field(default_factory=dict)  # step index → its new steps
    task: str = ""  # the task as this run asks it, its parameters' values in place
    last_read: str = ""


class StepFailed(Exception):
    """A step that cannot be done or healed: the run ends `failed` with this reason."""


class Replay:
    """Runs routines in chats, through each chat's call runner and the one agent."""

    def __init__(
        self,
        *,
        store: Store,
        conversations: Conversations,
        agent: Callable[[], Awaitable[Agent]],
        step_wait: float = STEP_WAIT,
    ) -> None:
        self.store = store
        self.conversations = conversations
        self._agent = agent
        self.step_wait = step_wait

    async def run(
        self, routine: Routine, values: dict[str, str], session_id: int, emit: Emit, state: RunState
    ) -> None:
        """Run `routine` with `values` in chat `session_id`; `state.report` says how it went,
        also when the run is cancelled (Stop, quitting) or a step fails."""
        report = state.report
        agent = await self._agent()
        first_request = agent.requests[session_id]
        try:
            plan = plan_input(routine)
            if plan is not None:
                card, _text = await self._call(agent, session_id, PLAN_TOOL, None, plan, emit)
                if card.outcome != "ok":
                    raise StepFailed(PLAN_DECLINED)
            for index, step in enumerate(routine.steps, start=1):
                await self._step(agent, routine, values, index, step, emit, state)
            report.answer = await self._answer(agent, routine, session_id, emit, state)
            report.ok, report.status = True, "done"
        except StepFailed as failed:
            report.ok, report.status, report.error = False, "failed", str(failed)
        except asyncio.CancelledError:
            report.ok, report.status = False, "stopped"
            report.error = "Stopped before the routine finished; the chat keeps what ran."
            raise
        finally:
            report.model_requests = agent.requests[session_id] - first_request
            report.seconds = round(time.monotonic() - state.started, 3)
            report.update_offered = bool(state.healed) and report.status == "done"

    async def _step(
        self,
        agent: Agent,
        routine: Routine,
        values: dict[str, str],
        index: int,
        step: Step,
        emit: Emit,
        state: RunState,
    ) -> None:
        session_id = state.report.chat_id or 0
        arguments: dict[str, Any] = fill(step.input, values)
        why = ""
        source = agent.calls.source_for(
            ToolUse(id="", name=step.member, toolset_name=step.toolset_name)
        )
        address = ADDRESS_KEYS.get(step.source)
        if (
            step.target is not None
            and address is not None
            and address in arguments
            and isinstance(source, ToolsetSource)
        ):
            found = await source.find_again(session_id, step.target, within=self.step_wait)
            if found.found:
                arguments = {**arguments, **found.input}
            else:
                why = found.why or "its target was not found"
        if not why:
            card, text = await self._call(
                agent, session_id, step.member, step.toolset_name, arguments, emit
            )
            if card.outcome in ("denied", "blocked"):
                state.report.steps.append(
                    StepReport(index=index, words=step.words, status="failed", why=card.result)
                )
                raise StepFailed(f"Step {index} ({step.words}) was not allowed: {card.result}")
            if card.outcome == "error":
                why = f"it failed ({card.result.splitlines()[0] if card.result else 'no reason'})"
            else:
                why = differs(step, card.effect)
            if step.reads and not why:
                state.last_read = text
            if not why:
                effect = list(card.effect.changes) if card.effect else []
                state.report.steps.append(
                    StepReport(index=index, words=step.words, status="replayed", effect=effect)
                )
                state.report.replayed += 1
                return
        # The model sees the step as this run does it: its parameters' values filled in.
        shown = step.model_copy(update={"input": fill(step.input, values)})
        await self._heal(agent, routine, index, shown, why, emit, state)

    async def _heal(
        self,
        agent: Agent,
        routine: Routine,
        index: int,
        step: Step,
        why: str,
        emit: Emit,
        state: RunState,
    ) -> None:
        """The one step, done by the model from the page or window as it is now."""
        session_id = state.report.chat_id or 0
        look = LOOK_NOW.get(step.source)
        if look is not None:
            await self._call(agent, session_id, look[0], step.toolset_name, dict(look[1]), emit)
        self.conversations.show_prompt(
            session_id, heal_prompt(routine, index, step, why, bool(look), task=state.task)
        )
        before = self.store.messages(session_id)[-1].id
        failed: list[TurnFailed] = []

        def watch(event: AgentEvent) -> None:
            if isinstance(event, TurnFailed):
                failed.append(event)
            emit(event)

        await agent.continue_turn(session_id, watch)
        since = [m for m in self.store.messages(session_id) if m.id > before]
        done = [record_step(use, card) for use, card, _ in calls_of(since) if card.outcome == "ok"]
        acted = [new for new in done if not new.reads]
        if failed or not (acted or (step.reads and done)):
            reason = failed[0].title if failed else "Claude did not do it"
            state.report.steps.append(
                StepReport(index=index, words=step.words, status="failed", why=why)
            )
            raise StepFailed(f"Step {index} ({step.words}) could not be healed: {why}; {reason}.")
        state.healed[index] = done
        state.report.healed += 1
        state.report.steps.append(
            StepReport(
                index=index,
                words=step.words,
                status="healed",
                why=why,
                effect=[line for new in done for line in new.effect],
            )
        )

    async def _answer(
        self, agent: Agent, routine: Routine, session_id: int, emit: Emit, state: RunState
    ) -> str:
        if not routine.answer:
            return state.last_read
        self.conversations.show_prompt(session_id, ANSWER_PROMPT)
        await agent.continue_turn(session_id, emit, act=False)
        last = self.store.messages(session_id)[-1]
        if last.role != "assistant":
            raise StepFailed("Claude could not write the answer; the steps' results are above.")
        return last.text

    async def _call(
        self,
        agent: Agent,
        session_id: int,
        name: str,
        toolset_name: str | None,
        arguments: dict[str, Any],
        emit: Emit,
    ) -> tuple[CallCard, str]:
        """One call, as if Claude had made it: stored, carded, and run through the pipeline."""
        use = ToolUse(
            id=f"toolu_routine_{uuid.uuid4().hex[:20]}",
            name=name,
            input=arguments,
            toolset_name=toolset_name,
        )
        emit(MessageStarted(session_id=session_id))
        commit(self.store, emit, session_id, "assistant", [use.block()], stop_reason="tool_use")
        await agent.calls.run_all(session_id, [use.block()], emit)
        for block in self.store.messages(session_id)[-1].content:
            if block.get("tool_use_id") == use.id and isinstance(block.get(CARD_KEY), dict):
                return CallCard.model_validate(block[CARD_KEY]), result_text(block)
        return CallCard(label=name, outcome="error", result="No result was kept."), ""


def heal_prompt(
    routine: Routine, index: int, step: Step, why: str, looked: bool, *, task: str = ""
) -> str:
    """The one message a step that no longer matches sends to the model (`task` and the step's
    input as this run has them, its parameters filled in)."""
    lines = [
        f"Deskhand is running the routine “{routine.name}” for this task: {task or routine.task}",
        f"Step {index} of {len(routine.steps)} could not be done as recorded: {why}.",
        f"The step's intent: {step.words}",
    ]
    target = step.target
    if target is not None:
        parts = [
            f"{label} “{value}”"
            for label, value in (
                ("role", target.role),
                ("name", target.name),
                ("near", target.near),
                ("page", target.url),
                ("app", target.app),
                ("window", target.window),
            )
            if value
        ]
        lines.append("Its recorded target: " + ", ".join(parts))
    lines.append(f"Its input in this run: {step.input}")
    lines.append("Its recorded effect: " + ("; ".join(step.effect) or "none"))
    if looked:
        lines.append("The page or window as it is now is in the last result above.")
    lines.append(
        "Do this one step with your tools, within the approved plan, then stop and say in one "
        "line what you did. Do not do the steps after it."
    )
    return "\n".join(lines)
