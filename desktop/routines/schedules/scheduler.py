"""The scheduler: one asyncio task in the app that starts scheduled runs on time.

It sleeps until the next due time, never longer than a minute (`TICK`), and reads the wall
clock each time it wakes, so a clock that was changed, or a computer that slept, moves the
next run rather than losing or repeating it. Each schedule keeps `done_until`, the moment up
to which its times are spent; the next run is the schedule's first time after that, so a
clock set back never fires a time twice.

A due time that is more than `GRACE` old was missed (Deskhand was not running, or the
computer slept): by the routine's setting it runs once now (the default; however many times
were missed), or is recorded as `missed`. A time that comes while the routine runs is
recorded as `skipped`: a routine never runs twice at once.

Setting a schedule asks the person once, on the plan sheet ("Run NAME on schedule, within
these sites and apps"); that approval is kept signed with the schedule (`book.py`) and stands
for each run's plan sheet while neither the routine nor the schedule changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

from desktop.calls.approvals import ApprovalQueue
from desktop.calls.permissions import Risk, ToolCall
from desktop.calls.sources.plan.book import PLAN_TOOL
from desktop.routines import SCHEDULE_ACTION
from desktop.routines.book import RoutineError
from desktop.routines.model import plan_input
from desktop.routines.schedules.book import Approval, Missed, ScheduleBook, Scheduled, digest
from desktop.routines.schedules.times import (
    Schedule,
    latest_until,
    local_zone,
    next_after,
    short,
)
from desktop.routines.schedules.unattended import Order, Unattended
from desktop.system.store import AuditEntry

if TYPE_CHECKING:
    from desktop.routines.service import Routines

log = logging.getLogger(__name__)

TICK = 60.0  # the longest sleep: how soon a changed clock is noticed
GRACE = timedelta(minutes=2)  # a due time older than this when seen was missed
SHEET_TITLE = "Run “{name}” on schedule, within these sites and apps"
NO_WINDOW = (
    "Setting a schedule needs your approval on Deskhand's plan sheet: open Deskhand, then "
    "set it again."
)
DECLINED = "The schedule was not approved, so “{name}” is not scheduled."


class Scheduler:
    """The schedules of one data folder, and the task that runs them."""

    def __init__(
        self,
        routines: Routines,
        book: ScheduleBook,
        unattended: Unattended,
        approvals: ApprovalQueue,
        *,
        now: Callable[[], datetime] | None = None,
        zone: tzinfo | None = None,
    ) -> None:
        self.routines = routines
        self.book = book
        self.unattended = unattended
        self.approvals = approvals
        self.zone = zone or local_zone()
        self.now = now or (lambda: datetime.now(self.zone))
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._starting: set[asyncio.Future[None]] = set()

    # -- what the window and the command line ask ---------------------------------------------

    def get(self, name: str) -> Scheduled | None:
        return self.book.load(name)

    def next_for(self, name: str) -> datetime | None:
        entry = self.book.load(name)
        return self._next(entry) if entry is not None else None

    def scheduled_count(self) -> int:
        """How many routines have a time still to come (the tray: "2 routines scheduled")."""
        return sum(1 for entry in self.book.all() if self._next(entry) is not None)

    def next_run(self) -> tuple[str, datetime] | None:
        """The next scheduled run: its routine and time (quitting names it)."""
        upcoming = [
            (when, entry.name)
            for entry in self.book.all()
            if (when := self._next(entry)) is not None
        ]
        if not upcoming:
            return None
        when, name = min(upcoming)
        return name, when

    def approved(self, name: str) -> bool:
        """Whether the schedule's approval still covers the routine as it is."""
        entry = self.book.load(name)
        return entry is not None and self._covered(entry, name, entry.schedule)

    def will_ask(self, name: str, schedule: Schedule) -> bool:
        """Whether setting this schedule needs the person's approval (not yet given for this
        routine and schedule as they are)."""
        return not self._covered(self.book.load(name), name, schedule)

    def _covered(self, entry: Scheduled | None, name: str, schedule: Schedule) -> bool:
        """Whether `entry`'s approval covers routine `name` as it is now, on `schedule`."""
        if entry is None or entry.approval is None:
            return False
        try:
            routine = self.routines.load(name).routine
        except RoutineError:
            return False
        return entry.approval.covers(routine, schedule)

    async def set(self, name: str, schedule: Schedule, missed: Missed = "run") -> Scheduled:
        """Schedule `name`, once the person approved it on the plan sheet. Raises
        RoutineError: `not_found`, `refused` (not kept, no window, or not approved)."""
        stored = self.routines.load(name)
        if not stored.kept:
            raise RoutineError("refused", f"Keep the routine “{name}” before scheduling it.")
        routine = stored.routine
        earlier = self.book.load(name)
        if (
            earlier is not None
            and earlier.approval is not None
            and earlier.approval.covers(routine, schedule)
        ):
            entry = earlier.model_copy(update={"missed": missed})  # nothing new to approve
            return self._saved(entry)
        if not self.approvals.has_viewer:
            raise RoutineError("refused", NO_WINDOW)
        plan = plan_input(routine)
        call = ToolCall(
            session_id=0,
            tool_use_id=f"schedule:{name}",
            tool=PLAN_TOOL,
            action=SCHEDULE_ACTION,
            label=f"Run “{name}” on schedule",
            input=plan or {"apps": routine.plan.apps, "schedule": schedule.words()},
            risk=Risk.CHANGE,
            reason="Scheduled runs go on without you inside this approval",
            summary=f"Run “{name}” {schedule.words()}",
        )
        answer = await self.approvals.ask(
            call,
            note=PLAN_TOOL if plan is not None else "",
            title=SHEET_TITLE.format(name=name),
        )
        allowed = answer.allow and answer.by == "person"
        self.routines.store.add_audit(
            AuditEntry(
                at=time.time(),
                session_id=None,
                tool=PLAN_TOOL,
                action=SCHEDULE_ACTION,
                summary=call.summary,
                input_digest=digest(call.input)[:16],  # as the gate's rows
                decision="allowed" if allowed else "denied",
                decided_by=answer.by,
                outcome=None if allowed else "not run",
                reason="" if allowed else answer.reason,
            )
        )
        if not allowed:
            raise RoutineError("refused", DECLINED.format(name=name))
        approval = Approval(
            approved_at=self.now().isoformat(timespec="seconds"),
            routine=digest(routine.document()),
            schedule=digest(schedule.spec()),
            plan=routine.plan,
        )
        entry = Scheduled(
            name=name,
            schedule=schedule,
            missed=missed,
            approval=approval,
            done_until=self.now().isoformat(timespec="seconds"),
        )
        return self._saved(entry)

    def remove(self, name: str) -> bool:
        """`--off`: the routine is no longer scheduled (its approval goes with it)."""
        self.routines.load(name)  # not_found for an unknown routine
        removed = self.book.remove(name)
        self._touched()
        return removed

    def _saved(self, entry: Scheduled) -> Scheduled:
        self.book.save(entry)
        self._touched()
        return entry

    def _touched(self) -> None:
        self._wake.set()
        self.routines.touched()

    # -- the task ---------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the task (the app, once its window is up). Missed runs are seen first."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    def wake(self) -> None:
        """Look at the clock now (tests move it; a schedule changed)."""
        self._wake.set()

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.unattended.close()

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.fire_due()
            except Exception:  # one bad schedule must not end the scheduler
                log.exception("scheduled runs could not be started")
            # Woken by the delay or by `wake`; not `wait_for`, whose cancellation can be lost
            # (Python 3.11) when the event is set in the same moment.
            alarm = asyncio.get_running_loop().call_later(self._delay(), self._wake.set)
            try:
                await self._wake.wait()
            finally:
                alarm.cancel()

    def _delay(self) -> float:
        soonest = TICK
        upcoming = self.next_run()
        if upcoming is not None:
            soonest = min(soonest, (upcoming[1] - self.now()).total_seconds())
        expiring = self.unattended.expire()
        if expiring is not None:
            soonest = min(soonest, expiring)
        return max(0.05, soonest)

    async def fire_due(self) -> list[str]:
        """Start (or record) each schedule's run that is due now; returns what it did, one
        "NAME: started|skipped|missed|failed" a schedule."""
        now = self.now()
        done: list[str] = []
        for entry in self.book.all():
            due = self._next(entry)
            if due is None or due > now:
                continue
            self.book.save(entry.model_copy(update={"done_until": now.isoformat()}))
            if now - due > GRACE and entry.missed == "skip":
                self.routines.store.add_routine_run(entry.name, "schedule", "missed")
                done.append(f"{entry.name}: missed")
                continue
            latest = latest_until(entry.schedule, due - timedelta(seconds=1), now, self.zone)
            done.append(f"{entry.name}: {await self._trigger(entry, latest or due)}")
        if done:
            self.routines.touched()
        return done

    async def _trigger(self, entry: Scheduled, due: datetime) -> str:
        name = entry.name
        if name in self.routines.running():
            self.routines.store.add_routine_run(name, "schedule", "skipped")
            return "skipped"
        approved_by: str | None = None
        try:
            routine = self.routines.load(name).routine
            if entry.approval is not None and entry.approval.covers(routine, entry.schedule):
                approved_by = entry.approval.words()
            order = Order(slot=short(due.astimezone(self.zone)), approved_by=approved_by)
            await self.routines.start(name, trigger="schedule", order=order)
        except RoutineError as error:
            log.info("the scheduled run of %s did not start: %s", name, error.message)
            self.routines.store.add_routine_run(name, "schedule", "failed")
            return "failed"
        return "started"

    def _next(self, entry: Scheduled) -> datetime | None:
        """The schedule's first time after those already spent."""
        since = entry.done_until or entry.schedule.since
        try:
            after = datetime.fromisoformat(since)
        except ValueError:
            after = self.now()
        return next_after(entry.schedule, after, self.zone)
