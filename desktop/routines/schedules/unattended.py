"""Unattended runs: a scheduled run goes on inside its one approval, and waits where a sheet
would ask.

While a scheduled run's chat is held (`ApprovalQueue.hold`), the gate still decides every call
as for any chat; what it would ask waits aside instead of opening a sheet over the person's
work. Each such question:

- posts a desktop notification "NAME needs you: <the sheet's headline>";
- marks the chat waiting (`waiting`, and `subscribe` for the window's sidebar);
- is shown when the person clicks the notification or opens the chat (`show`);
- ends the run as "Not done: nobody answered." once it has waited longer than the setting
  (12 hours by default), checked on the scheduler's ticks with the wall clock, so a computer
  that slept through the wait still ends it.

When the run ends, a notification gives the chat's title and the answer's first line; a click
on any of them opens the chat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from desktop.calls.approvals import ApprovalQueue, ApprovalRequest
from desktop.calls.sources.plan.book import PLAN_TOOL, PlanBook

if TYPE_CHECKING:
    from desktop.routines.model import RunReport
    from desktop.system.notifications import DesktopNotifications

log = logging.getLogger(__name__)

NEEDS_YOU = "{name} needs you: {headline}"
NOBODY_ANSWERED = "Not done: nobody answered."
PLAN_HEADLINE = "Approve Claude's plan?"
WAIT_HOURS = 12.0
PREVIEW_CHARS = 140

Post = Callable[[str, str, int], Awaitable[bool]]
Listener = Callable[[int], None]


def headline(request: ApprovalRequest) -> str:
    """The headline of the sheet `request` would open (ui/sheets/plan.py, approval.py)."""
    if request.title:
        return request.title
    if request.note == PLAN_TOOL:
        return PLAN_HEADLINE
    return f"Allow {request.call.label or request.call.rule_key}?"


@dataclass(frozen=True)
class Order:
    """A scheduled run's own terms: the time it is for ("Tue 08:00", in its chat's title),
    and who approved its plan ahead (None: the schedule's approval no longer covers the
    routine, so the plan sheet waits for the person like any other)."""

    slot: str
    approved_by: str | None


@dataclass
class Waiting:
    """A held question of an unattended run: what the chat waits for, since when."""

    name: str
    chat_id: int
    headline: str
    since: float  # wall-clock seconds
    request: ApprovalRequest


class Unattended:
    """The chats of runs nobody watches, their held questions and their notifications."""

    def __init__(
        self,
        approvals: ApprovalQueue,
        plans: PlanBook,
        *,
        wait_hours: Callable[[], float] = lambda: WAIT_HOURS,
        stop: Callable[[int], bool] = lambda _chat: False,
        post: Post | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.approvals = approvals
        self.plans = plans
        self.wait_hours = wait_hours
        self.stop = stop  # ends a chat's turn (conversations.stop)
        self.post = post or self._post_on_bus
        self.now = now
        # The window's hook: bring chat `id` into view (a click on a notification).
        self.open_chat: Callable[[int], None] | None = None
        self._runs: dict[int, str] = {}  # chat → routine name
        self._waits: dict[int, Waiting] = {}
        self._nobody: set[int] = set()
        self._listeners: list[Listener] = []
        self._bus: DesktopNotifications | None = None
        self._posting: set[asyncio.Future[Any]] = set()
        approvals.on_held.append(self._held)

    # -- the window's side ------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """`listener(chat)` hears when a chat starts or stops waiting for the person."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def waiting(self, chat_id: int | None = None) -> list[Waiting]:
        """The chats waiting for the person (one, or all), oldest first."""
        return [
            wait
            for wait in self._waits.values()
            if (chat_id is None or wait.chat_id == chat_id) and not wait.request.done
        ]

    def show(self, chat_id: int) -> bool:
        """The person opened chat `chat_id` (or clicked its notification): its waiting
        question is shown now. True if one was."""
        return self.approvals.show(chat_id)

    def clicked(self, chat_id: int) -> None:
        """A notification about chat `chat_id` was clicked: open the chat, show its sheet."""
        if self.open_chat is not None:
            self.open_chat(chat_id)
        self.show(chat_id)

    # -- the runs' side -------------------------------------------------------------------------

    def began(
        self, chat_id: int, name: str, plan: dict[str, Any] | None, approved_by: str | None
    ) -> None:
        """A scheduled run of `name` starts in chat `chat_id`: its questions are held, and its
        plan (when the schedule's approval still covers it) stands approved."""
        self._runs[chat_id] = name
        self.approvals.hold(chat_id)
        if plan is not None and approved_by is not None:
            self.plans.stand(chat_id, plan, approved_by)

    def nobody_answered(self, chat_id: int) -> bool:
        return chat_id in self._nobody

    def ended(self, chat_id: int, title: str, report: RunReport) -> None:
        """The run ended: the chat is watched again, and the person told how it went."""
        self._runs.pop(chat_id, None)
        self._waits.pop(chat_id, None)
        self.approvals.release(chat_id)
        self.plans.end(chat_id)  # the schedule's approval covered this run only
        self._nobody.discard(chat_id)
        body = report.answer if report.status == "done" else report.error or report.status
        self._notify(title, _first_line(body) or "Done.", chat_id)
        self._changed(chat_id)

    def expire(self) -> float | None:
        """End the runs whose question waited longer than the setting; returns the seconds
        until the next wait would expire (None: nothing waits)."""
        limit = self.wait_hours() * 3600
        soonest: float | None = None
        for wait in self.waiting():
            left = wait.since + limit - self.now()
            if left > 0:
                soonest = left if soonest is None else min(soonest, left)
                continue
            self._nobody.add(wait.chat_id)
            self.stop(wait.chat_id)
        return soonest

    def _held(self, request: ApprovalRequest) -> None:
        chat_id = request.call.session_id
        name = self._runs.get(chat_id)
        if name is None:
            return
        wait = Waiting(name, chat_id, headline(request), self.now(), request)
        self._waits[chat_id] = wait
        request.when_done(lambda: self._changed(chat_id))
        self._notify(
            NEEDS_YOU.format(name=name, headline=wait.headline), request.call.summary, chat_id
        )
        self._changed(chat_id)

    def _changed(self, chat_id: int) -> None:
        for listener in list(self._listeners):
            listener(chat_id)

    # -- notifications ----------------------------------------------------------------------------

    def _notify(self, title: str, body: str, chat_id: int) -> None:
        posting = asyncio.ensure_future(self.post(title, body, chat_id))
        self._posting.add(posting)  # held until done: the loop keeps only weak references
        posting.add_done_callback(self._posting.discard)

    async def _post_on_bus(self, title: str, body: str, chat_id: int) -> bool:
        if not sys.platform.startswith("linux"):
            return False  # the window posts them elsewhere (it sets `post`)
        if self._bus is None:
            from desktop.system.notifications import DesktopNotifications

            self._bus = DesktopNotifications(self.clicked)
        return await self._bus.notify(title, body, chat_id)

    async def close(self) -> None:
        for posting in list(self._posting):
            posting.cancel()
        await asyncio.gather(*self._posting, return_exceptions=True)
        if self._bus is not None:
            # A reply still on its way as the bus closes makes jeepney set the result of a
            # future that was cancelled (InvalidStateError): the bus goes either way.
            with contextlib.suppress(asyncio.InvalidStateError, OSError):
                await self._bus.close()


def _first_line(text: str) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1].rstrip() + "…"
