"""`run_gated`: one described call, from the gate to its audited end, whoever sent it.

Every entry point runs its calls here: a chat's reply (`runner.ToolCalls`), `deskhand ui`,
`deskhand mcp` and `deskhand apps call`. A call that names one of Deskhand's own places is
refused before any work, with no one asked (`own_places/guard.py`). The gate then says whether it
refuses the call before any work (a Never rule; or, where no one could answer, a call it
would ask about).
Then the source runs it and asks the gate (`CallContext.approve`) right before any effect.
A run refused because what it acts on changed after its approval (`CallResult.changed`:
nothing done) runs again, described anew and decided anew, at most `MAX_ASKED_AGAIN` times.
The allowed run's audit row is finished, and an API key in its result is replaced first.

Every call leaves with an outcome from the one vocabulary (`outcome_of`, tools/outcome.py): what
its source saw it really did, or, when the source said nothing, `refused` for a denial,
`failed` for an error, `unconfirmed` for a call that acted, and none for a read.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from desktop.calls.contract import CallContext, CallResult, ToolSource, ToolUse
from desktop.calls.gate import Gate, denial_text
from desktop.calls.own_places.guard import KEY_NOTICE, own_place_refusal, without_keys
from desktop.calls.permissions import Decision, ToolCall
from tools.base import TOOL_FAILED, InvalidInput
from tools.outcome import Outcome
from tools.risk import Risk

log = logging.getLogger(__name__)

# A call whose target keeps changing after each approval is refused after this many new asks.
MAX_ASKED_AGAIN = 2
ASKING_AGAIN = "What this acts on changed after the approval; asking again."
CHANGED_NOTE = "what it acts on changed after the approval"
# What a call that acted says when its source could not look at what it did.
NOT_CHECKED = "Not confirmed: this tool does not read back what it did."

# How an entry point asks the gate about a call, told what the person last allowed for it.
Check = Callable[[ToolCall, ToolCall | None], Awaitable[tuple[Decision, int]]]


@dataclass
class Settled:
    """How one call ended: what it returned, and the gate's decision that stands (None: it
    never reached the gate)."""

    result: CallResult
    decision: Decision | None


@dataclass
class _Verdict:
    """The gate's answer for a call that reached it, and its audit row."""

    decision: Decision
    audit_id: int
    call: ToolCall | None = None  # what was decided on, when the source asked
    at: float = field(default_factory=time.monotonic)
    # Superseded: the run it allowed found its target changed and did nothing (audited so).
    spent: bool = False


async def refused_as_own_place(
    use: ToolUse, call: ToolCall, source: ToolSource, gate: Gate
) -> Settled | None:
    """The refusal of a call that names one of Deskhand's own places (own_places/guard.py), audited;
    None for any other call. No sheet: no one may allow it."""
    found = await own_place_refusal(use, call, source)
    if found is None:
        return None
    phrase, notice, decision = found
    gate.record_refusal(call, decision)
    refused = CallResult(content=[{"type": "text", "text": phrase}], is_error=True)
    return Settled(
        refused.model_copy(update={"notices": [notice], "outcome": Outcome(kind="refused")}),
        decision,
    )


def outcome_of(result: CallResult, decision: Decision | None, risk: Risk | None) -> Outcome | None:
    """What a call really did, in the one vocabulary: a denial is `refused`; else what its
    source saw; else an error is `failed`, a call that acted (`risk` above read) `unconfirmed`,
    and a read keeps none (nothing to confirm: it changed nothing)."""
    if decision is not None and decision.verdict == "deny":
        return Outcome(kind="refused")
    if result.outcome is not None:
        return result.outcome
    if result.is_error:
        return Outcome(kind="failed")
    if risk is None or risk is Risk.READ:
        return None
    return Outcome(kind="unconfirmed", note=NOT_CHECKED)


def keys_removed(result: CallResult) -> CallResult:
    """The second line: an API key in a result is replaced before it is stored or sent."""
    content, found = without_keys(result.content)
    if not found:
        return result
    return result.model_copy(update={"content": content, "notices": [*result.notices, KEY_NOTICE]})


async def run_gated(
    use: ToolUse,
    call: ToolCall,
    source: ToolSource,
    *,
    gate: Gate,
    session_id: int,
    attachments_dir: Path,
    progress: Callable[[str], None] = lambda _line: None,
    check: Check | None = None,
    can_ask: bool = True,
) -> Settled:
    """Run `call` (the source's description of `use`) behind the gate.

    `check` asks the gate (by default `gate.check`); `can_ask=False` where no one could answer,
    so a call the gate would ask about is refused before any work.
    """
    own = await refused_as_own_place(use, call, source, gate)
    if own is not None:
        return own
    refused = gate.refusal(call, can_ask=can_ask)
    if refused is not None:
        denied = CallResult.failure(denial_text(refused))
        return Settled(denied.model_copy(update={"outcome": Outcome(kind="refused")}), refused)
    verdicts: list[_Verdict] = []

    async def approve(asked: ToolCall) -> Decision:
        approved = _allowed_by_person(verdicts)
        if check is None:
            decision, audit_id = await gate.check(asked, approved=approved)
        else:
            decision, audit_id = await check(asked, approved)
        verdicts.append(_Verdict(decision, audit_id, asked))
        return decision

    ctx = CallContext(
        session_id=session_id, attachments_dir=attachments_dir, approve=approve, progress=progress
    )
    result = keys_removed(await _run_until_settled(use, call, source, ctx, gate, verdicts))
    current = verdicts[-1] if verdicts and not verdicts[-1].spent else None
    ran = current.call if current is not None and current.call is not None else call
    decision = verdicts[-1].decision if verdicts else None
    result = result.model_copy(update={"outcome": outcome_of(result, decision, ran.risk)})
    if current is not None and current.decision.verdict == "allow":
        gate.finished(
            current.audit_id,
            ok=not result.is_error,
            started=current.at,
            notes=result.notices,
            effect=result.outcome,
        )
    elif current is None and not result.is_error:
        # A source that ran without asking the gate is a bug: say so loudly in the log.
        log.error("%s ran %s without the gate", source.name, use.name)
    return Settled(result, decision)


async def _run_until_settled(
    use: ToolUse,
    call: ToolCall,
    source: ToolSource,
    ctx: CallContext,
    gate: Gate,
    verdicts: list[_Verdict],
) -> CallResult:
    # Notices and offers of runs that were refused for a change, kept for the card.
    notices: list[str] = []
    offers: list[str] = []
    asked_again = 0
    while True:
        result = await _run_once(use, call, source, ctx)
        last = verdicts[-1] if verdicts and not verdicts[-1].spent else None
        if (
            not result.changed
            or last is None  # this run never reached the gate: nothing to ask again about
            or last.decision.verdict != "allow"
            or asked_again == MAX_ASKED_AGAIN
        ):
            break
        # Nothing was done, and what was approved is no longer what the call would act on:
        # the source describes it on what is there now and the gate decides again (a rule
        # may settle it; else the person sees the new target).
        gate.not_run(last.audit_id, CHANGED_NOTE)
        last.spent = True
        notices += result.notices
        offers += result.offers
        asked_again += 1
        ctx.progress(ASKING_AGAIN)
        described = await _describe_again(use, source, ctx.session_id)
        if isinstance(described, CallResult):
            result = described
            break
        call = described
    if not notices and not offers:
        return result
    return result.model_copy(
        update={
            "notices": _unique(notices + result.notices),
            "offers": _unique(offers + result.offers),
        }
    )


async def _describe_again(
    use: ToolUse, source: ToolSource, session_id: int
) -> ToolCall | CallResult:
    try:
        return await source.describe(use, session_id)
    except asyncio.CancelledError:
        raise
    except InvalidInput:  # it fitted a moment ago: whatever changed, nothing runs
        return CallResult.failure(TOOL_FAILED)
    except Exception:
        log.exception("%s could not describe %s again", source.name, use.name)
        return CallResult.failure(TOOL_FAILED)


async def _run_once(
    use: ToolUse, call: ToolCall, source: ToolSource, ctx: CallContext
) -> CallResult:
    try:
        return await source.run(use, call, ctx)
    except asyncio.CancelledError:
        ctx.cancelled.set()
        raise
    except Exception:
        log.exception("%s failed in %s", use.name, source.name)
        return CallResult.failure(TOOL_FAILED)


def _allowed_by_person(verdicts: list[_Verdict]) -> ToolCall | None:
    """The call as the person last allowed it, if that is the latest decision on this use."""
    if not verdicts:
        return None
    last = verdicts[-1]
    allowed = last.decision.verdict == "allow" and last.decision.by == "person"
    return last.call if allowed else None


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
