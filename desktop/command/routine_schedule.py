"""`deskhand routine schedule`: a routine's schedule set from the command line.

`schedule NAME (--at "YYYY-MM-DD HH:MM" | --daily HH:MM | --weekdays HH:MM | --every 30m |
--cron "0 8 * * 1-5" | --off) [--missed run|skip]` reads the time here (a time or cron line that
cannot be is refused `bad_input`, saying what was wrong) and sends the schedule to the running
app (`protocol.ScheduleRequest`): a schedule runs unattended only inside the person's approval,
given on the window's plan sheet, so setting one needs the window. `--off` needs no approval,
and works with no app running. `--json` prints `deskhand.routine.schedule/1`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.routines.schedules.scheduler import Scheduler
    from desktop.routines.schedules.times import Schedule

NEEDS_WINDOW = (
    "Setting a schedule needs your approval on Deskhand's plan sheet: start Deskhand, then run "
    "this again."
)
ANSWER_WAIT = 30.0  # seconds for the app to answer; the person's answer extends it (client.py)


def add_schedule(verbs: Any, shared: Sequence[argparse.ArgumentParser]) -> None:
    """`schedule`, among `deskhand routine`'s verbs (`routines.py`)."""
    schedule = verbs.add_parser(
        "schedule",
        help="run a routine on a schedule (approved once, on the window's plan sheet)",
        parents=list(shared),
    )
    schedule.add_argument("name", help="the routine's name")
    when = schedule.add_mutually_exclusive_group(required=True)
    when.add_argument("--at", metavar="'YYYY-MM-DD HH:MM'", help="once, at this date and time")
    when.add_argument("--daily", metavar="HH:MM", help="every day at this time")
    when.add_argument("--weekdays", metavar="HH:MM", help="Monday to Friday at this time")
    when.add_argument("--every", metavar="30m|2h", help="every N minutes (m) or hours (h)")
    when.add_argument("--cron", metavar="'M H DOM MON DOW'", help="a five-field cron line")
    when.add_argument("--off", action="store_true", help="take the schedule off")
    schedule.add_argument(
        "--missed",
        choices=("run", "skip"),
        default="run",
        help="a run missed while Deskhand was closed: run once at the next start (default), "
        "or skip it",
    )


# -- schedule ---------------------------------------------------------------------------------


def parse_when(args: argparse.Namespace, now: datetime) -> Schedule | None:
    """The schedule the options name (None for --off). Raises ScheduleError."""
    from desktop.routines.schedules import times

    if args.off:
        return None
    if args.at is not None:
        return times.once(args.at, now)
    if args.daily is not None:
        return times.daily(args.daily, now)
    if args.weekdays is not None:
        return times.daily(args.weekdays, now, "weekdays")
    if args.every is not None:
        return times.every(args.every, now)
    return times.cron(args.cron, now)


def schedule(args: argparse.Namespace) -> int:
    from desktop.command.client import Failure, send_request
    from desktop.routines.book import RoutineError
    from desktop.routines.schedules.times import ScheduleError, local_zone

    try:
        schedule = parse_when(args, datetime.now(local_zone()))
        _known(args.data_dir, args.name)
    except ScheduleError as error:
        return _failed(args, "bad_input", str(error))
    except RoutineError as error:
        return _failed(args, error.code, error.message)
    request = {
        "kind": "schedule",
        "name": args.name,
        "schedule": schedule.model_dump(mode="json") if schedule is not None else None,
        "missed": args.missed,
    }
    try:
        result = send_request(args.data_dir, request, args.timeout or ANSWER_WAIT)
    except Failure as failure:
        if failure.code != "not_running":
            return _failed(args, failure.code, str(failure))
        if schedule is not None:
            return _failed(args, "needs_permission", NEEDS_WINDOW)
        return _off_here(args)
    if not result.ok:
        return _failed(args, result.code or "failed", result.error)
    return _print_schedule(args, result.data or {})


def _known(data_dir: Path | None, name: str) -> None:
    """RoutineError `not_found` for a routine that has no file."""
    from desktop.routines.book import RoutineBook
    from desktop.system.paths import DataPaths
    from desktop.system.settings.model import SettingsFile

    paths = DataPaths.for_data_dir(data_dir)
    RoutineBook(paths.routines, SettingsFile(paths.settings).seal).load(name)


def _off_here(args: argparse.Namespace) -> int:
    """--off with no app running: the schedule file goes (no approval is needed to stop)."""
    from desktop.routines.schedules.book import ScheduleBook
    from desktop.system.paths import DataPaths
    from desktop.system.settings.model import SettingsFile

    paths = DataPaths.for_data_dir(args.data_dir)
    ScheduleBook(paths.schedules, SettingsFile(paths.settings).seal).remove(args.name)
    return _print_schedule(args, described(None, args.name))


def _print_schedule(args: argparse.Namespace, data: dict[str, Any]) -> int:
    from desktop.command import answers

    if args.json:
        answers.emit(answers.answer("routine.schedule", data))
    elif data.get("schedule") is None:
        print(f"“{args.name}” is not scheduled.")
    else:
        print(f"“{args.name}” runs {data['words']}; next run: {data.get('next_run') or 'none'}.")
    return 0


def _failed(args: argparse.Namespace, code: str, message: str) -> int:
    from desktop.command import answers

    if args.json:
        answers.emit(answers.error("routine schedule", code, message))
    print(message, file=sys.stderr)
    return answers.exit_code(code)


def described(scheduler: Scheduler | None, name: str) -> dict[str, Any]:
    """A routine's schedule as `deskhand.routine.schedule/1` carries it."""
    entry = scheduler.get(name) if scheduler is not None else None
    if scheduler is None or entry is None:
        return {"name": name, "schedule": None, "words": "", "missed": "run", "next_run": None}
    upcoming = scheduler.next_for(name)
    return {
        "name": name,
        "schedule": entry.schedule.spec(),
        "words": entry.schedule.words(),
        "missed": entry.missed,
        "next_run": upcoming.isoformat(timespec="minutes") if upcoming else None,
        "approved": scheduler.approved(name),
    }


async def set_in_app(
    scheduler: Scheduler,
    name: str,
    schedule: dict[str, Any] | None,
    missed: str,
    asking: Callable[[str], Awaitable[None]],
) -> tuple[bool, dict[str, Any] | None, str, str]:
    """The app's side of a `schedule` request: (ok, data, code, message)."""
    from pydantic import ValidationError

    from desktop.routines.book import RoutineError
    from desktop.routines.schedules.times import Schedule

    try:
        if schedule is None:
            scheduler.remove(name)
        else:
            parsed = Schedule.model_validate(schedule)
            if scheduler.will_ask(name, parsed):
                await asking(f"Run “{name}” {parsed.words()}")
            await scheduler.set(name, parsed, "skip" if missed == "skip" else "run")
    except ValidationError:
        return False, None, "bad_input", "The schedule was not understood."
    except RoutineError as error:
        return False, None, error.code, error.message
    return True, described(scheduler, name), "", ""
