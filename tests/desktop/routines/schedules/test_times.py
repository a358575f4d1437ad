"""Next times of each kind of schedule, across daylight-saving changes in two zones, and what
the person is told for a time or cron line that cannot be."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from desktop.routines.schedules.times import (
    Schedule,
    ScheduleError,
    cron,
    daily,
    every,
    next_after,
    once,
    short,
)

NEW_YORK = ZoneInfo("America/New_York")  # 2026: springs forward Mar 8 02:00, falls back Nov 1
BERLIN = ZoneInfo("Europe/Berlin")  # 2026: springs forward Mar 29 02:00, falls back Oct 25 03:00


def times(schedule: Schedule, start: datetime, count: int) -> list[str]:
    found: list[str] = []
    when = start
    for _ in range(count):
        following = next_after(schedule, when, start.tzinfo)  # type: ignore[arg-type]
        assert following is not None
        found.append(following.isoformat())
        when = following
    return found


@pytest.mark.parametrize(
    ("zone", "night"),
    [(NEW_YORK, datetime(2026, 3, 7, 12, 0)), (BERLIN, datetime(2026, 3, 28, 12, 0))],
)
def test_a_time_the_clock_skips_runs_once_when_the_skip_ends(
    zone: ZoneInfo, night: datetime
) -> None:
    start = night.replace(tzinfo=zone)
    offset_after = "-04:00" if zone is NEW_YORK else "+02:00"
    day = night.day + 1
    assert times(daily("02:30", start), start, 3) == [
        f"2026-03-{day:02d}T03:00:00{offset_after}",  # 02:30 does not exist that night
        f"2026-03-{day + 1:02d}T02:30:00{offset_after}",
        f"2026-03-{day + 2:02d}T02:30:00{offset_after}",
    ]
    # A cron line names the same time, and is settled the same way.
    assert times(cron("30 2 * * *", start), start, 1)[0] == (
        f"2026-03-{day:02d}T03:00:00{offset_after}"
    )


def test_a_time_the_clock_shows_twice_runs_once_at_its_first_showing() -> None:
    # New York, Nov 1 2026: 01:30 happens at -04:00 and again at -05:00; it runs at the first.
    start = datetime(2026, 10, 31, 12, 0, tzinfo=NEW_YORK)
    assert times(daily("01:30", start), start, 2) == [
        "2026-11-01T01:30:00-04:00",
        "2026-11-02T01:30:00-05:00",
    ]
    # Berlin, Oct 25 2026: 02:30 happens at +02:00 and again at +01:00.
    start = datetime(2026, 10, 24, 12, 0, tzinfo=BERLIN)
    assert times(daily("02:30", start), start, 2) == [
        "2026-10-25T02:30:00+02:00",
        "2026-10-26T02:30:00+01:00",
    ]


def test_every_counts_real_time_across_the_change() -> None:
    start = datetime(2026, 10, 25, 0, 0, tzinfo=BERLIN)
    assert times(every("1h", start), start, 4) == [
        "2026-10-25T01:00:00+02:00",
        "2026-10-25T02:00:00+02:00",
        "2026-10-25T02:00:00+01:00",  # an hour later: the clock went back
        "2026-10-25T03:00:00+01:00",
    ]


def test_weekdays_weekly_and_once() -> None:
    friday = datetime(2026, 12, 4, 9, 0, tzinfo=BERLIN)
    assert [
        short(datetime.fromisoformat(t))
        for t in times(daily("08:00", friday, "weekdays"), friday, 3)
    ] == [
        "Mon 08:00",
        "Tue 08:00",
        "Wed 08:00",
    ]
    weekly = daily("18:15", friday, "weekly", [2, 6])
    assert weekly.words() == "every Wed, Sun at 18:15"
    assert [short(datetime.fromisoformat(t)) for t in times(weekly, friday, 3)] == [
        "Sun 18:15",
        "Wed 18:15",
        "Sun 18:15",
    ]
    single = once("2026-12-24 08:00", friday)
    assert next_after(single, friday, BERLIN) == datetime(2026, 12, 24, 8, 0, tzinfo=BERLIN)
    assert next_after(single, datetime(2026, 12, 24, 8, 0, tzinfo=BERLIN), BERLIN) is None


@pytest.mark.parametrize(
    ("make", "text", "words"),
    [
        (cron, "0 8 * * 1-5 *", "it needs 5 fields (minute hour day month weekday), not 6"),
        (cron, "0 25 * * *", "a field is out of range or misspelt"),
        (daily, "8am", "is not a time of day: write HH:MM"),
        (daily, "24:00", "is not a time of day"),
        (every, "30s", "is not an interval: write e.g. 30m or 2h"),
        (every, "0m", "an interval runs from 1 minute to 7 days"),
        (once, "2026-13-01 08:00", "is not a date and time: write YYYY-MM-DD HH:MM"),
        (once, "2026-01-01 08:00", "has already passed"),
    ],
)
def test_what_cannot_be_a_schedule_says_what_was_wrong(make, text, words) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ScheduleError) as error:
        make(text, datetime(2026, 12, 2, 9, 0, tzinfo=BERLIN))
    assert words in str(error.value)
