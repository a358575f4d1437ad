"""The gate in front of every tool call: decide, ask the person when needed, audit, remember rules.

What decides is `permissions` (pure); this is where its decisions are put into effect. The
entry points ask the gate two things about a described call, and never `decide` themselves:

- `refusal(call)`: whether it is refused before any work (a Never rule; or, where no one could
  answer, a call that would ask), audited;
- `check(call)`: the final decision right before the call acts, asking the person if needed.

`will_ask(call)` says whether `check` would put the call to someone (so an entry point can say
it is waiting, or ask through its own channel first).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable, Sequence

from desktop.calls.approvals import ApprovalQueue
from desktop.calls.permissions import (
    DENIED_BY_PERSON,
    DENIED_BY_RULE,
    NO_APPROVER,
    Decision,
    RuleScope,
    ToolCall,
    decide,
)
from desktop.calls.sources.plan.book import CHANGES_WANTED, OUTSIDE_DENIED, PLAN_TOOL, PlanBook
from desktop.system.settings.permissions import PermissionSettings, Rule
from desktop.system.store import AuditEntry, Store
from tools.outcome import Outcome, bounded_section

ALLOWED_AS_SHOWN = "allowed as shown a moment before"


def input_digest(value: object) -> str:
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


class Gate:
    """`await gate.check(call)` returns the final decision (allow/deny) and its audit row."""

    def __init__(
        self,
        *,
        settings: Callable[[], PermissionSettings],
        store: Store,
        remember: Callable[[str, Rule], None],
        approvals: ApprovalQueue,
        plans: PlanBook | None = None,
    ) -> None:
        self._settings = settings
        self.plans = (
            plans  # each chat's approved plan, if any (chats only: see sources/plan/book.py)
        )
        self._store = store
        self._remember = remember
        self.approvals = approvals  # the window views it; with no viewer, asks are denied

    def refusal(
        self, call: ToolCall, *, can_ask: bool = True, audit: bool = True
    ) -> Decision | None:
        """The decision that refuses `call` before any work is done for it, or None when it
        may go on (to run, or to be asked about right before it acts).

        A Never rule refuses it; with `can_ask=False` (no one could answer), so does anything
        `check` would put to someone. The refusal is audited unless `audit=False` (another
        process asked, and audits it itself)."""
        decision = decide(call, self._settings())
        if decision.verdict == "ask" and not can_ask:
            decision = Decision(verdict="deny", by="mode", reason=NO_APPROVER)
        if decision.verdict != "deny":
            return None
        if audit:
            self._audit(call, decision, "not run")
        return decision

    def record_refusal(self, call: ToolCall, decision: Decision) -> int:
        """Audit a refusal settled before the gate is asked (Deskhand's own places)."""
        return self._audit(call, decision, "not run")

    def will_ask(self, call: ToolCall, approved: ToolCall | None = None) -> bool:
        """Whether `check` would put this call to someone (no rule or mode settles it)."""
        return self._decide(call).verdict == "ask" and not _as_shown(call, approved)

    def _decide(self, call: ToolCall) -> Decision:
        """The rules' and the mode's decision, then the chat's plan's."""
        settings = self._settings()
        decision = decide(call, settings)
        if self.plans is not None:
            decision = self.plans.judge(call, decision, settings.mode)
        return decision

    async def check(
        self, call: ToolCall, *, approved: ToolCall | None = None
    ) -> tuple[Decision, int]:
        """`approved`: the same call as the person allowed it moments ago, asked about again
        because what it acts on changed. If it still reads exactly the same (same target, risk,
        summary, input), their answer stands rather than a second identical question."""
        decision = self._decide(call)
        if decision.verdict == "ask" and not decision.plan and _as_shown(call, approved):
            decision = Decision(verdict="allow", by="person", reason=ALLOWED_AS_SHOWN)
        if decision.verdict == "ask":
            try:
                decision = await self._ask(call, decision.plan)
            except asyncio.CancelledError:
                self._audit(
                    call, Decision(verdict="deny", by="stop", reason="stopped"), outcome="not run"
                )
                raise
        outcome = None if decision.verdict == "allow" else "not run"
        return decision, self._audit(self._as_audited(call, decision), decision, outcome)

    def _as_audited(self, call: ToolCall, decision: Decision) -> ToolCall:
        """An approved plan's row keeps the plan as approved: approach, sites, apps, when, who."""
        if call.tool != PLAN_TOOL or decision.verdict != "allow" or self.plans is None:
            return call
        plan = self.plans.current(call.session_id)
        return call if plan is None else call.model_copy(update={"summary": plan.audit_text()})

    async def _ask(self, call: ToolCall, plan_note: str = "") -> Decision:
        # A plan the person approved ahead (a schedule's one approval) stands for its sheet:
        # only that exact plan, once, proposed by the run itself before the model is asked.
        standing = (
            self.plans.standing(call) if call.tool == PLAN_TOOL and self.plans is not None else None
        )
        if standing is not None and self.plans is not None:
            self.plans.end(call.session_id)
            self.plans.approve(call, None, by=standing)
            return Decision(verdict="allow", by="person", reason=standing, plan=plan_note)
        if not self.approvals.has_viewer:
            return Decision(verdict="deny", by="mode", reason=NO_APPROVER)
        answer = await self.approvals.ask(call, note=plan_note)
        allowed = answer.allow and answer.by == "person"  # nothing else can say yes
        if allowed and answer.always and not plan_note:  # a plan's questions offer no Always
            self._remember(RuleScope.of(call).key, Rule.ALLOW)
        if call.tool == PLAN_TOOL and self.plans is not None:
            # Proposing another plan ends the one before, whatever the answer.
            self.plans.end(call.session_id)
            if allowed:
                self.plans.approve(call, answer.keep)
        elif allowed and plan_note and self.plans is not None:
            self.plans.allowed_beyond(call)  # the person let this one leave the plan
        return Decision(
            verdict="allow" if allowed else "deny",
            by=answer.by,
            reason=answer.reason.strip(),
            plan=plan_note,
        )

    def _audit(self, call: ToolCall, decision: Decision, outcome: str | None) -> int:
        return self._store.add_audit(
            AuditEntry(
                at=time.time(),
                session_id=call.session_id,
                tool=call.tool,
                action=call.action,
                summary=call.summary,
                input_digest=input_digest(call.input),
                decision="allowed" if decision.verdict == "allow" else "denied",
                decided_by=decision.by,
                outcome=outcome,
                reason=decision.reason
                if decision.verdict == "deny" or decision.by == "plan"
                else "",
                effect="refused" if outcome == "not run" else "",
            )
        )

    def not_run(self, audit_id: int, why: str) -> None:
        """An allowed call that did not run after all (what it acts on changed)."""
        self._store.finish_audit(audit_id, f"not run · {why}", 0, "refused", why)

    def finished(
        self,
        audit_id: int,
        *,
        ok: bool,
        started: float,
        notes: Sequence[str] = (),
        effect: Outcome | None = None,
    ) -> None:
        """The allowed call ran: how it ended, and what it really did (`effect`: None for a
        read that reported nothing)."""
        outcome = "ok" if ok else "error"
        if notes:
            outcome += " · " + "; ".join(notes)
        self._store.finish_audit(
            audit_id,
            outcome,
            int((time.monotonic() - started) * 1000),
            effect.kind if effect is not None else "",
            audit_lines(effect),
        )


def audit_lines(effect: Outcome | None) -> str:
    """An outcome's `Effect:` lines and note as the audit keeps them, one a line, within the
    section's own bounds; "" when there is nothing to say."""
    if effect is None:
        return ""
    if not effect.changes:
        return effect.note
    return bounded_section(effect.changes, effect.note).partition("\n")[2]


def _as_shown(call: ToolCall, approved: ToolCall | None) -> bool:
    """Whether `call` reads exactly as the person allowed it a moment ago."""
    return approved is not None and approved == call


def denial_text(decision: Decision) -> str:
    """The fixed phrase the model reads for a denial, plus the person's own reason if they gave one."""
    if decision.by == "rule":
        return DENIED_BY_RULE
    if decision.by == "person" and decision.plan:
        told = CHANGES_WANTED if decision.plan == PLAN_TOOL else OUTSIDE_DENIED
        return told + (f" Their reason: {decision.reason}" if decision.reason else "")
    if decision.by == "person":
        return DENIED_BY_PERSON + (f" Their reason: {decision.reason}" if decision.reason else "")
    return decision.reason or NO_APPROVER
