"""Approved plans: the sites and apps one chat may act on without a sheet, and for how long.

Claude proposes a plan with `update_plan`; only the person approves one (no rule, mode or
earlier answer does), and may remove sites and apps first. While a chat's plan lasts, the
gate asks `PlanBook.judge` about every call of that chat:

- a call that lands outside the plan asks in every mode, Autonomous included ("Not in the
  plan: elsewhere.example"); where a call lands is its target (the page, the destination of
  a navigation, the app) and every place its effect reaches (`ToolCall.lands`: a link's
  target, a form's action);
- in *Ask for changes*, a read or a change that lands only on plan sites and apps runs
  unasked, audited as "allowed by the plan approved at 10:42";
- consequential calls ask as before, and *Ask every time* still asks for each step;
- the chat's browser tabs are held to the plan's sites (`navigation_hold`): a redirect or a
  page script that takes a tab elsewhere is stopped, unless the person allowed that place.

A plan ends when the person ends it, when Claude proposes another one, when its time runs
out (Settings → Permissions), or when the app quits: it is held in memory, while the chat
keeps its card and the audit keeps the plan's row.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from urllib.parse import urlsplit

from desktop.calls.permissions import Decision, Risk, ToolCall
from desktop.calls.sources.plan.proposal import NAME as PLAN_TOOL
from desktop.calls.sources.plan.proposal import PlanInput, normal_host
from desktop.system.settings.permissions import Mode
from tools.data import Data

__all__ = ["PLAN_TOOL", "Plan", "PlanBook", "PlanInput"]

ONLY_THE_PERSON = "Only you can approve a plan"
NOT_IN_PLAN = "Not in the plan: "
NOT_A_CHAT = "Plans belong to chats; this way into Deskhand takes none. Ask for each action."
UNKNOWN_PLACE = "a place this action cannot be tied to"
STILL_ASKS = (
    "Purchases, payments, sending, deleting, sign-ups and downloads still ask every time, and so "
    "does anything outside these sites and apps. Passwords are never filled, and Deskhand's own "
    "windows are never touched."
)
# What Claude reads when the person wants another plan, or said no to a step outside the plan.
CHANGES_WANTED = (
    "The person did not approve this plan and wants changes. Do not act yet: propose a revised "
    "plan with update_plan."
)
OUTSIDE_DENIED = (
    "This action lands outside the approved plan, and the person said no. Do not retry it or "
    "reach the same place another way; if the task needs it, propose a wider plan with "
    "update_plan."
)


def clock(at: float) -> str:
    """The time of day a plan was approved, as the audit and the chip say it ("10:42")."""
    return datetime.fromtimestamp(at).strftime("%H:%M")


class Plan(Data, frozen=True):
    """A plan the person approved for one chat."""

    session_id: int
    domains: tuple[str, ...]
    approach: tuple[str, ...]
    apps: tuple[str, ...] = ()
    approved_at: float
    expires_at: float
    approved_by: str = "person"

    @property
    def allowed_by(self) -> str:
        return f"allowed by the plan approved at {clock(self.approved_at)}"

    def chip(self) -> str:
        """ "Plan: 2 sites, 1 app" (the chip adds its End)."""
        sites = len(self.domains)
        parts = [f"{sites} site{'s' if sites != 1 else ''}"]
        if self.apps:
            parts.append(f"{len(self.apps)} app{'s' if len(self.apps) != 1 else ''}")
        return "Plan: " + ", ".join(parts)

    def covers_host(self, host: str) -> bool:
        host = normal_host(host)
        for pattern in self.domains:
            if pattern.startswith("*."):
                base = normal_host(pattern[2:])
                if host == base or host.endswith("." + base):
                    return True
            elif host == normal_host(pattern):
                return True
        return False

    def covers_app(self, app: str) -> bool:
        wanted = app.strip().casefold()
        return any(wanted == name.strip().casefold() for name in self.apps)

    def outside(self, call: ToolCall) -> list[str]:
        """The places the call lands on that the plan does not cover (empty: all covered)."""
        places = [p for p in [call.target, *call.lands] if p]
        if not places:
            return [UNKNOWN_PLACE]
        missing: list[str] = []
        for place in places:
            if "://" in place:
                host = _host(place)
                if host is None or not self.covers_host(host):
                    missing.append(host or place)
            elif not self.covers_app(app_of(place)):
                missing.append(app_of(place))
        return list(dict.fromkeys(missing))

    def result_text(self) -> str:
        """What Claude reads once the person approved: fixed phrases and the approved lists."""
        steps = "\n".join(f"{n}. {step}" for n, step in enumerate(self.approach, 1))
        minutes = max(1, round((self.expires_at - self.approved_at) / 60))
        apps = ", ".join(self.apps) if self.apps else "none"
        return (
            f"The person approved this plan at {clock(self.approved_at)}, for {minutes} minutes.\n"
            f"Sites: {', '.join(self.domains)}\nApps: {apps}\nApproach:\n{steps}\n"
            "Reads and changes on these sites and apps now run without asking in the default "
            f"mode. {STILL_ASKS} Anything outside this plan asks in every mode; if the task "
            "needs more, propose a wider plan with update_plan."
        )

    def audit_text(self) -> str:
        """The plan as its audit row keeps it."""
        apps = ", ".join(self.apps) if self.apps else "none"
        steps = " / ".join(self.approach)
        return (
            f"approved at {clock(self.approved_at)} by the {self.approved_by}; sites "
            f"{', '.join(self.domains)}; apps {apps}; approach: {steps}"
        )


def app_of(target: str) -> str:
    """The app a non-web target names ("Reminders", or "Mail — Inbox" for a window)."""
    return target.split(" — ", 1)[0].strip()


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


Listener = Callable[[int], None]


class PlanBook:
    """Each chat's approved plan; the gate asks it about every call.

    `minutes()` is the lifetime a plan gets when it is approved (Settings → Permissions).
    `now` is the clock (tests move it)."""

    def __init__(self, minutes: Callable[[], int], *, now: Callable[[], float] = time.time) -> None:
        self._minutes = minutes
        self.now = now
        self._plans: dict[int, Plan] = {}
        # Per chat: hosts outside its plan the person allowed a call to reach (its browser
        # tabs may go there too), until the plan ends.
        self._beyond: dict[int, set[str]] = {}
        self._listeners: list[Listener] = []
        # Per chat: a plan the person approved ahead (a schedule's approval), and by what.
        self._standing: dict[int, tuple[dict[str, object], str]] = {}

    def stand(self, session_id: int, plan: dict[str, object], by: str) -> None:
        """The person approved `plan` for chat `session_id` ahead of its run (with a
        schedule): its one `update_plan` proposing exactly that plan is approved without a
        sheet, audited as approved `by` that. Used once; any other plan asks."""
        self._standing[session_id] = (plan, by)

    def standing(self, call: ToolCall) -> str | None:
        """What approved `call` (an `update_plan`) ahead, if anything did: consumed here."""
        held = self._standing.pop(call.session_id, None)
        if held is None or call.tool != PLAN_TOOL or held[0] != call.input:
            return None
        return held[1]

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """`listener(session_id)` hears of every plan approved, ended or expired."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _changed(self, session_id: int) -> None:
        for listener in list(self._listeners):
            listener(session_id)

    def current(self, session_id: int) -> Plan | None:
        """The chat's plan while it lasts (an expired one is dropped here)."""
        plan = self._plans.get(session_id)
        if plan is not None and self.now() >= plan.expires_at:
            del self._plans[session_id]
            self._changed(session_id)
            return None
        return plan

    def end(self, session_id: int) -> None:
        self._beyond.pop(session_id, None)
        self._standing.pop(session_id, None)
        if self._plans.pop(session_id, None) is not None:
            self._changed(session_id)

    def allowed_beyond(self, call: ToolCall) -> None:
        """The person allowed `call`, which lands outside the chat's plan: where it goes on
        the web may be reached (a navigation there is not held back)."""
        hosts = {_host(place) for place in [call.target, *call.lands] if place and "://" in place}
        known = {normal_host(host) for host in hosts if host}
        self._beyond.setdefault(call.session_id, set()).update(known)

    def navigation_hold(self, chat: str) -> Callable[[str], bool] | None:
        """Where the browser tabs of chat `chat` (its id, as the browser keys it) may go while
        its plan lasts: the plan's sites and what the person allowed beyond them. None without
        a plan (the URL policy alone decides)."""
        if not chat.isdigit():
            return None
        plan = self.current(int(chat))
        if plan is None:
            return None
        beyond = self._beyond.get(int(chat), set())
        return lambda host: plan.covers_host(host) or normal_host(host) in beyond

    def result_text(self, session_id: int) -> str | None:
        plan = self.current(session_id)
        return plan.result_text() if plan is not None else None

    def judge(self, call: ToolCall, decision: Decision, mode: Mode) -> Decision:
        """The decision for `call` once the chat's plan has had its say (see the module)."""
        if call.tool == PLAN_TOOL:
            if decision.verdict == "deny":
                return decision  # a Never rule still refuses before anyone is asked
            if call.session_id <= 0:  # `deskhand mcp`, `deskhand ui`: not chats
                return Decision(verdict="deny", by="plan", reason=NOT_A_CHAT)
            return Decision(verdict="ask", by="plan", reason=ONLY_THE_PERSON, plan=PLAN_TOOL)
        plan = self.current(call.session_id)
        if plan is None or decision.verdict == "deny":
            return decision
        if call.risk is Risk.READ and decision.verdict == "allow":
            return decision  # looking leaks nothing: reads keep the mode's answer
        missing = plan.outside(call)
        if missing:
            note = NOT_IN_PLAN + ", ".join(missing)
            return Decision(verdict="ask", by="plan", reason=note, plan=note)
        if (
            mode is Mode.CHANGES
            and decision.verdict == "ask"
            and decision.by == "mode"
            and call.risk is not Risk.CONSEQUENTIAL
        ):
            return Decision(verdict="allow", by="plan", reason=plan.allowed_by)
        return decision

    def approve(self, call: ToolCall, keep: list[str] | None, *, by: str = "person") -> Plan | None:
        """The person approved `call` (an `update_plan`), keeping `keep` of its sites and apps
        (None: all of them), on its sheet or ahead (`by`: the schedule's approval). Any
        earlier plan of the chat is replaced."""
        try:
            proposed = PlanInput.model_validate(call.input)
        except ValueError:
            return None
        kept = set(keep) if keep is not None else None
        domains = tuple(d for d in proposed.domains if kept is None or d in kept)
        apps = tuple(a for a in proposed.apps if kept is None or a in kept)
        self.end(call.session_id)
        if not domains and not apps:
            return None
        now = self.now()
        plan = Plan(
            session_id=call.session_id,
            domains=domains,
            approach=tuple(proposed.approach),
            apps=apps,
            approved_at=now,
            expires_at=now + 60 * max(1, self._minutes()),
            approved_by=by,
        )
        self._plans[call.session_id] = plan
        self._changed(call.session_id)
        return plan
