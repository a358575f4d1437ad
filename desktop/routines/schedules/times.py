"""A routine's schedule and its next times, in the local time zone.

The times come from well-kept libraries, never from date arithmetic here: `dateutil.rrule`
for once, daily, weekdays, weekly and every N minutes or hours, `croniter` for a cron line.
Wall-clock kinds (all but "every") are computed as the clock on the wall reads them and then
placed in the zone, which is where daylight-saving changes are settled:

- a time the clock skips (02:30 on the spring-forward night) runs once, at the first valid
  time after it (03:00, when the skipped hour ends);
- a time the clock shows twice (01:30 on the fall-back night) runs once, at its first showing.

"Every N minutes|hours" counts real time from when the schedule was set, so a DST change
neither shortens nor doubles an interval.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field

from tools.data import Data

if TYPE_CHECKING:
    from dateutil import rrule

Kind = Literal["once", "daily", "weekdays", "weekly", "every", "cron"]
DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
WEEKDAYS = (0, 1, 2, 3, 4)
# The longest a daylight-saving change moves the clock (Lord Howe's is 30 minutes, most
# are an hour; two hours covers every zone in the database).
LARGEST_SHIFT = timedelta(hours=2)
LOOK_AHEAD = 5000  # candidate wall times tried before a schedule is said to have no next time


class ScheduleError(ValueError):
    """A schedule that cannot be: the message says what was wrong, for the person."""


class Schedule(Data):
    """When a routine runs. `at`: "YYYY-MM-DD HH:MM" for once, "HH:MM" for the wall-clock
    kinds; `days`: 0 (Monday) to 6 for weekly; `minutes`: the interval of "every"; `cron`: a
    five-field cron line; `since`: when it was set (ISO, with offset), what "every" counts
    from."""

    kind: Kind
    at: str = ""
    days: list[int] = Field(default_factory=list)
    minutes: int = 0
    cron: str = ""
    since: str = ""

    def words(self) -> str:
        """The schedule as the person reads it: "weekdays at 08:00"."""
        if self.kind == "once":
            return f"once, on {self.at}"
        if self.kind == "daily":
            return f"daily at {self.at}"
        if self.kind == "weekdays":
            return f"weekdays at {self.at}"
        if self.kind == "weekly":
            return f"every {', '.join(DAY_NAMES[day] for day in self.days)} at {self.at}"
        if self.kind == "every":
            hours, minutes = divmod(self.minutes, 60)
            return f"every {hours} h" if hours and not minutes else f"every {self.minutes} min"
        return f"cron “{self.cron}”"

    def spec(self) -> dict[str, object]:
        """What the approval covers: the schedule without when it was set."""
        return self.model_dump(mode="json", exclude={"since"})


# -- reading what the person typed ------------------------------------------------------------


def _clock(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)", text.strip())
    if match is None:
        raise ScheduleError(f"“{text}” is not a time of day: write HH:MM, from 00:00 to 23:59.")
    return int(match.group(1)), int(match.group(2))


def once(text: str, now: datetime) -> Schedule:
    try:
        when = datetime.strptime(text.strip(), "%Y-%m-%d %H:%M")
    except ValueError:
        raise ScheduleError(
            f"“{text}” is not a date and time: write YYYY-MM-DD HH:MM, e.g. 2026-12-24 08:00."
        ) from None
    if resolve(when, _zone_of(now)) <= now:
        raise ScheduleError(f"{text} has already passed.")
    return Schedule(kind="once", at=when.strftime("%Y-%m-%d %H:%M"), since=_iso(now))


def daily(
    text: str, now: datetime, kind: Kind = "daily", days: list[int] | None = None
) -> Schedule:
    hour, minute = _clock(text)
    chosen = sorted(set(days or []))
    if kind == "weekly" and (not chosen or any(day not in range(7) for day in chosen)):
        raise ScheduleError("A weekly schedule needs its days, from Monday (0) to Sunday (6).")
    return Schedule(kind=kind, at=f"{hour:02d}:{minute:02d}", days=chosen, since=_iso(now))


def every(text: str, now: datetime) -> Schedule:
    match = re.fullmatch(r"\s*(\d{1,4})\s*(m|min|h)\s*", text.strip().lower())
    if match is None:
        raise ScheduleError(f"“{text}” is not an interval: write e.g. 30m or 2h.")
    minutes = int(match.group(1)) * (60 if match.group(2) == "h" else 1)
    if not 1 <= minutes <= 7 * 24 * 60:
        raise ScheduleError(f"“{text}”: an interval runs from 1 minute to 7 days.")
    return Schedule(kind="every", minutes=minutes, since=_iso(now))


def cron(line: str, now: datetime) -> Schedule:
    fields = line.split()
    if len(fields) != 5:
        raise ScheduleError(
            f"“{line}” is not a cron line: it needs 5 fields (minute hour day month weekday), "
            f"not {len(fields)}."
        )
    from croniter import croniter  # the libraries load with the first schedule, not at start

    if not croniter.is_valid(" ".join(fields)):
        raise ScheduleError(
            f"“{line}” is not a cron line: a field is out of range or misspelt "
            "(minute 0-59, hour 0-23, day 1-31, month 1-12, weekday 0-7)."
        )
    return Schedule(kind="cron", cron=" ".join(fields), since=_iso(now))


# -- next times ---------------------------------------------------------------------------------


def next_after(schedule: Schedule, after: datetime, zone: tzinfo) -> datetime | None:
    """The first time strictly after `after` (aware) that `schedule` runs, in `zone`; None
    when it runs no more (a once that passed)."""
    if schedule.kind == "every":
        found = _interval(schedule, after).after(after.astimezone(UTC), inc=False)
        return found.astimezone(zone) if found is not None else None
    # Wall times from a little before `after`: one the clock skipped may resolve past it.
    begin = after.astimezone(zone).replace(tzinfo=None, fold=0) - LARGEST_SHIFT
    for count, wall in enumerate(_wall_times(schedule, begin)):
        if count >= LOOK_AHEAD:
            return None
        when = resolve(wall, zone)
        if when > after:
            return when
    return None


def latest_until(
    schedule: Schedule, after: datetime, until: datetime, zone: tzinfo
) -> datetime | None:
    """The last time in (`after`, `until`] the schedule ran or should have: the one a run
    that catches up on missed times is for."""
    if schedule.kind == "every":
        found = _interval(schedule, after).before(until.astimezone(UTC), inc=True)
        if found is None or found <= after:
            return None
        return found.astimezone(zone)
    latest = None
    when = next_after(schedule, after, zone)
    for _ in range(LOOK_AHEAD):
        if when is None or when > until:
            break
        latest = when
        when = next_after(schedule, when, zone)
    return latest


def _interval(schedule: Schedule, after: datetime) -> rrule.rrule:
    """The "every" rule, started at its last whole interval before `after`: rrule walks from
    its start, and a schedule set long ago would be walked from then on each look."""
    from dateutil import rrule

    since = datetime.fromisoformat(schedule.since).astimezone(UTC)
    step = timedelta(minutes=schedule.minutes)
    skipped = max(0, (after.astimezone(UTC) - since) // step - 1)
    return rrule.rrule(rrule.MINUTELY, interval=schedule.minutes, dtstart=since + skipped * step)


def _wall_times(schedule: Schedule, begin: datetime) -> Iterator[datetime]:
    """The naive wall-clock times the schedule names, from `begin` on, each once."""
    if schedule.kind == "once":
        when = datetime.strptime(schedule.at, "%Y-%m-%d %H:%M")
        if when >= begin:
            yield when
        return
    if schedule.kind == "cron":
        from croniter import croniter

        times = croniter(schedule.cron, begin - timedelta(minutes=1))
        while True:
            yield times.get_next(datetime)
    from dateutil import rrule

    hour, minute = _clock(schedule.at)
    days = {"daily": None, "weekdays": WEEKDAYS, "weekly": tuple(schedule.days)}.get(schedule.kind)
    start = begin.replace(second=0, microsecond=0)
    rule = rrule.rrule(
        rrule.DAILY, dtstart=start, byhour=hour, byminute=minute, bysecond=0, byweekday=days
    )
    yield from rule.xafter(start, inc=True)


def resolve(wall: datetime, zone: tzinfo) -> datetime:
    """A naive wall-clock time as an aware one in `zone`: a time shown twice is its first
    showing; a time the clock skipped is the moment the skip ends (the next valid time)."""
    first = wall.replace(tzinfo=zone, fold=0)
    if first.astimezone(UTC).astimezone(zone).replace(tzinfo=None) == wall:
        return first
    # Skipped: the change lies between the instant the old offset names and the new one's.
    low = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    high = first.astimezone(UTC)
    low, high = min(low, high), max(low, high)
    while high - low > timedelta(minutes=1):  # the change falls on a whole minute
        middle = low + (high - low) / 2
        middle = middle.replace(second=0, microsecond=0)
        if middle.astimezone(zone).replace(tzinfo=None) >= wall:
            high = middle
        else:
            low = middle + timedelta(minutes=1) if middle == low else middle
    return high.astimezone(zone)


# -- the local zone -------------------------------------------------------------------------------


def local_zone() -> tzinfo:
    """The computer's time zone with its daylight-saving rules: `TZ`, else /etc/localtime's
    name, else what the C library knows (dateutil's `tzlocal`)."""
    name = os.environ.get("TZ", "").lstrip(":")
    if not name:
        try:
            target = str(Path("/etc/localtime").resolve())
        except OSError:
            target = ""
        name = target.partition("zoneinfo/")[2]
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    from dateutil import tz

    return tz.tzlocal()


def _zone_of(now: datetime) -> tzinfo:
    return now.tzinfo or local_zone()


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="seconds")


def short(when: datetime) -> str:
    """How a run's time reads in its chat's title and on the page: "Tue 08:00"."""
    return f"{DAY_NAMES[when.weekday()]} {when:%H:%M}"
