"""A wall clock the test moves, read by the scheduler and by unattended runs' waits."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from desktop.workspace import Workspace

BERLIN = ZoneInfo("Europe/Berlin")


class Clock:
    """The wall clock as the scheduler and the waits read it; the test moves it."""

    def __init__(self, start: datetime) -> None:
        self.current = start

    def now(self) -> datetime:
        return self.current

    def timestamp(self) -> float:
        return self.current.timestamp()

    def set(self, when: datetime) -> None:
        self.current = when

    def move(self, **delta: float) -> None:
        self.current += timedelta(**delta)


def use_clock(workspace: Workspace, start: datetime) -> Clock:
    clock = Clock(start)
    workspace.scheduler.now = clock.now
    workspace.scheduler.zone = BERLIN
    workspace.unattended.now = clock.timestamp
    return clock
