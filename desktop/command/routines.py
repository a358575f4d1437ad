"""`deskhand routine`: save a finished chat as a routine, list and show routines and their runs,
run one.

    deskhand routine save [CHAT] --name NAME [--param NAME=TEXT]…
    deskhand routine list
    deskhand routine show NAME
    deskhand routine runs NAME
    deskhand routine run NAME [--param NAME=VALUE]… [--update]
    deskhand routine schedule NAME (--at … | --daily … | --weekdays … | --every … | --cron … | --off)

`save`, `list`, `show` and `runs` (the routine's past runs) open the data folder's store and
routine files themselves (`list` and `show` only the files), with or without the app running (CHAT: a chat's id or title, the latest chat by default; `--param
NAME=TEXT` makes the typed text TEXT the parameter NAME, TEXT its default). `run` asks the
running app over its command-line socket (starting it when none runs), and waits for the run's
end: the run happens in the app's chat "▶ NAME", through its plan sheet and gate; Ctrl+C stops
it (a second Ctrl+C leaves at once, the run going on in the app).

With `--json`: `save` and `show` print the routine itself (`deskhand.routine/1`, the file's
content without its signature), `list` prints `deskhand.routine.list/1`, `runs`
`deskhand.routine.runs/1`, `run` the run's report
(`deskhand.routine.run/1`); a failure is `deskhand.error/1` (`answers.py`) with `bad_input` (a
file that does not parse, an unknown or missing parameter), `not_found`, `already_running` or
`refused`. Failures print one line on stderr and exit with their code's status; a run that did
not finish (`failed`, `stopped`, `waiting`) exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.command import answers
from desktop.command.options import shared_options

if TYPE_CHECKING:
    from desktop.command.running import Running
    from desktop.routines.book import Listed, RoutineBook
    from desktop.routines.model import Routine
    from desktop.routines.service import Routines

__all__ = ["add_verbs", "run"]

NO_ROUTINES = "No routines yet. Save a finished chat with: deskhand routine save --name NAME"
NOT_A_PARAM = "--param needs NAME=TEXT, not “{given}”."
TWICE = "--param {name} is given twice."
NO_SUCH_CHAT = "There is no chat “{chat}” (give a chat's id or its title)."
LEFT = "Stopped waiting; the routine's chat in Deskhand says how the run ends."


class Refused(Exception):
    """What the command line itself got wrong (a `--param` without `=`): `bad_input`."""


def add_verbs(routine: argparse.ArgumentParser) -> None:
    """The verbs of `deskhand routine`, on its parser (made by the main parser)."""
    shared = [shared_options()]
    routine.description = (__doc__ or "").split("\n\n", 1)[0]
    verbs = routine.add_subparsers(dest="routine_command", required=True)
    save = verbs.add_parser(
        "save",
        help="save a finished chat as a routine (the latest chat by default)",
        parents=shared,
    )
    save.add_argument("chat", nargs="?", help="the chat's id or title (default: the latest)")
    save.add_argument("--name", required=True, help="the routine's name")
    save.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=TEXT",
        help="make the typed text TEXT the parameter NAME (TEXT is its default); repeatable",
    )
    verbs.add_parser("list", help="the routines, with their parameters", parents=shared)
    show = verbs.add_parser("show", help="a routine's plan, parameters and steps", parents=shared)
    show.add_argument("name", help="the routine's name")
    history = verbs.add_parser(
        "runs", help="a routine's past runs: when, who asked, how each ended", parents=shared
    )
    history.add_argument("name", help="the routine's name")
    from desktop.command.routine_schedule import add_schedule

    add_schedule(verbs, shared)
    running = verbs.add_parser(
        "run",
        help="run a routine in the app (started if needed) and wait for its end",
        parents=shared,
    )
    running.add_argument("name", help="the routine's name")
    running.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter's value for this run (others keep their default); repeatable",
    )
    running.add_argument(
        "--update",
        action="store_true",
        help="if a step had to be healed, write the healed steps into the routine",
    )


def run(args: argparse.Namespace, open_workspace: Callable[[Path | None], Running]) -> int:
    verb = args.routine_command
    try:
        params = _params(getattr(args, "param", []))
    except Refused as problem:
        return _fail(args, str(problem), "bad_input")
    if verb == "run":
        return _run(args, params)
    if verb == "schedule":
        from desktop.command.routine_schedule import schedule

        return schedule(args)
    from desktop.routines.book import RoutineError

    if verb in ("list", "show", "runs"):
        try:
            book = _book(args.data_dir)
            if verb == "runs":
                return _runs(args, book)
            return _list(args, book) if verb == "list" else _show(args, book)
        except RoutineError as error:
            return _fail(args, error.message, error.code)
    try:
        workspace = open_workspace(args.data_dir)
    except OSError as exc:
        return _fail(args, f"Deskhand cannot use its data dir: {exc}", "bad_input")
    try:
        return _save(args, workspace.routines, workspace, params)
    except RoutineError as error:
        return _fail(args, error.message, error.code)
    finally:
        workspace.store.close()


def _book(data_dir: Path | None) -> RoutineBook:
    """The routine files alone: reading them needs neither the store nor the workspace (a
    third of the time `save` takes to start)."""
    from desktop.routines.book import RoutineBook
    from desktop.system.paths import DataPaths
    from desktop.system.settings.model import SettingsFile

    paths = DataPaths.for_data_dir(data_dir)
    return RoutineBook(paths.routines, SettingsFile(paths.settings).seal)


def _params(given: list[str]) -> dict[str, str]:
    """`NAME=TEXT` pairs, in order; Refused for one without `=` or a name given twice."""
    params: dict[str, str] = {}
    for pair in given:
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise Refused(NOT_A_PARAM.format(given=pair))
        if name in params:
            raise Refused(TWICE.format(name=name))
        params[name] = text
    return params


# -- save, list, show -------------------------------------------------------------------------


def _chat_id(workspace: Running, chat: str | None) -> int | None:
    """The chat named on the line: by id, else by title (the newest of that title)."""
    from desktop.routines.book import RoutineError

    if chat is None:
        return None
    sessions = workspace.store.sessions()
    if chat.strip().isdigit() and any(session.id == int(chat) for session in sessions):
        return int(chat)
    wanted = " ".join(chat.split()).casefold()
    for session in sessions:  # newest first
        if " ".join(session.title.split()).casefold() == wanted:
            return session.id
    raise RoutineError("not_found", NO_SUCH_CHAT.format(chat=chat))


def _save(
    args: argparse.Namespace, routines: Routines, workspace: Running, params: dict[str, str]
) -> int:
    draft = routines.draft(_chat_id(workspace, args.chat))
    routine = routines.save(draft, args.name, params)
    if args.json:
        answers.emit(routine.document())
        return 0
    print(f"Saved the routine “{routine.name}”: {_count(len(routine.steps), 'step')}.")
    for line in _parameter_lines(routine):
        print(line)
    print(f"Run it with: deskhand routine run {_quoted(routine.name)}")
    return 0


def _list(args: argparse.Namespace, book: RoutineBook) -> int:
    entries = book.entries()
    if args.json:
        answers.emit(answers.answer("routine.list", {"routines": [_listed(e) for e in entries]}))
        return 0
    if not entries:
        print(NO_ROUTINES)
        return 0
    for entry in entries:
        print(_list_line(entry))
    return 0


def _listed(entry: Listed) -> dict[str, Any]:
    routine = entry.routine
    if routine is None:
        return {"name": entry.name, "kept": False, "problem": entry.problem}
    return {
        "name": entry.name,
        "kept": entry.kept,
        "task": routine.task,
        "parameters": [parameter.model_dump() for parameter in routine.parameters],
        "steps": len(routine.steps),
        "plan": routine.plan.model_dump(),
        "answer": routine.answer,
        "updated_at": routine.updated_at,
        "problem": "",
    }


def _list_line(entry: Listed) -> str:
    routine = entry.routine
    if routine is None:
        return f"{entry.name} — cannot be read: {entry.problem}"
    parts = [_count(len(routine.steps), "step")]
    if routine.parameters:
        parts.append("parameters " + ", ".join(p.name for p in routine.parameters))
    if not entry.kept:
        parts.append("not kept: changed outside Deskhand")
    return f"{entry.name} — {'; '.join(parts)}"


def _show(args: argparse.Namespace, book: RoutineBook) -> int:
    stored = book.load(args.name)
    routine = stored.routine
    if args.json:
        answers.emit(routine.document())
        return 0
    print(f"{routine.name}: {routine.task}")
    if not stored.kept:
        print(
            "Not kept: changed or added outside Deskhand. It runs once you keep it in "
            "Deskhand's window, after reading its steps."
        )
    for line in _parameter_lines(routine):
        print(line)
    plan = routine.plan
    if not plan.empty:
        needs = [*plan.domains, *plan.apps]
        print(f"Needs: {', '.join(needs)}")
    print("Steps:")
    for index, step in enumerate(routine.steps, start=1):
        given = json.dumps(step.input, ensure_ascii=False)
        print(f"  {index}. {step.words or step.member}  {given}")
    ending = "Claude's answer (one request)" if routine.answer else "the last read's text"
    print(f"Ends with {ending}.")
    return 0


def _runs(args: argparse.Namespace, book: RoutineBook) -> int:
    """The routine's runs, oldest first, from the store (the routine must exist)."""
    from desktop.system.paths import DataPaths
    from desktop.system.store import Store

    name = book.load(args.name).routine.name
    store = Store.open(DataPaths.for_data_dir(args.data_dir).database)
    try:
        runs = store.routine_runs(name)
    finally:
        store.close()
    listed = [
        {
            "id": run.id,
            "started_at": _when(run.started_at),
            "trigger": run.trigger,
            "status": run.status,
            "seconds": run.seconds,
            "model_requests": run.model_requests,
            "healed": run.healed,
            "chat_id": run.chat_id,
        }
        for run in runs
    ]
    if args.json:
        answers.emit(answers.answer("routine.runs", {"name": name, "runs": listed}))
        return 0
    if not runs:
        print(f"“{name}” has not run yet.")
    for run in runs:
        when = _when(run.started_at)[:16].replace("T", " ")
        healed = f", {run.healed} healed" if run.healed else ""
        who = WHO.get(run.trigger, run.trigger)
        print(
            f"{when}  {run.status:<8} {run.seconds:g} s, "
            f"{_count(run.model_requests, 'model request')}{healed}  (by {who})"
        )
    return 0


WHO = {
    "person": "you, in the window",
    "command": "the command line",
    "mcp": "an MCP client",
    "schedule": "its schedule",
}


def _when(epoch: float) -> str:
    from datetime import datetime

    return datetime.fromtimestamp(epoch).astimezone().isoformat(timespec="seconds")


def _parameter_lines(routine: Routine) -> list[str]:
    if not routine.parameters:
        return []
    shown = ", ".join(f"{p.name} (default “{p.default}”)" for p in routine.parameters)
    return [f"Parameters: {shown}"]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _quoted(name: str) -> str:
    import shlex

    return shlex.quote(name)


# -- run -----------------------------------------------------------------------------------------


def _run(args: argparse.Namespace, params: dict[str, str]) -> int:
    from desktop.command.client import Failure
    from desktop.command.launch import START_LIMIT
    from desktop.command.routine_run import AppRun

    def told(what: str, summary: str, _chat_id: int | None) -> None:
        if what == "starting":
            print("Deskhand is not running: starting it…", file=sys.stderr, flush=True)
        elif what == "started":
            print(
                f"Running in the chat “{summary}” (Ctrl+C stops it)…", file=sys.stderr, flush=True
            )
        elif what == "asking":
            print(f"Deskhand asks you in its window: {summary}", file=sys.stderr, flush=True)

    running = AppRun(
        args.data_dir,
        args.name,
        params,
        update=args.update,
        start_limit=args.timeout or START_LIMIT,
    )
    try:
        running.start(told)
        try:
            report = running.wait(told)
        except KeyboardInterrupt:
            print("Stopping the routine…", file=sys.stderr, flush=True)
            running.stop()  # the app stops it and still sends what ran
            report = running.wait(told)
    except Failure as failure:
        return _fail(args, str(failure), failure.code)
    except KeyboardInterrupt:  # a second Ctrl+C, or one while Deskhand was starting
        begun = running.connected
        running.close()
        print(LEFT if begun else "Stopped.", file=sys.stderr)
        return 130
    return _reported(args, report)


def _reported(args: argparse.Namespace, report: dict[str, Any]) -> int:
    if args.json:
        answers.emit(report)
    else:
        for line in _report_lines(report, updated=args.update):
            print(line)
    if report.get("ok") is True:
        return 0
    error = " ".join(str(report.get("error") or f"The run ended {report.get('status')}.").split())
    print(f"deskhand routine run: {error}", file=sys.stderr)
    return answers.EXIT_FAILED


def _report_lines(report: dict[str, Any], updated: bool) -> list[str]:
    """The run for a person: how it ended, each step that did not simply replay, the answer."""
    replayed, healed = int(report.get("replayed") or 0), int(report.get("healed") or 0)
    requests = int(report.get("model_requests") or 0)
    head = {"done": "Done", "failed": "Failed", "stopped": "Stopped", "waiting": "Waiting"}
    lines = [
        f"{head.get(str(report.get('status')), 'Ended')} in {report.get('seconds', 0):g} s: "
        f"{replayed} replayed, {healed} healed, {_count(requests, 'model request')}."
    ]
    for step in report.get("steps") or []:
        if step.get("status") != "replayed":
            why = f": {step['why']}" if step.get("why") else ""
            lines.append(f"  step {step.get('index')} {step.get('status')}{why}")
    if report.get("update_offered"):
        lines.append(
            "The routine now has the healed steps."
            if updated
            else "A step was healed: with --update a run keeps the healed steps in the routine."
        )
    if report.get("answer"):
        lines.append(str(report["answer"]))
    return lines


def _fail(args: argparse.Namespace, message: str, code: str) -> int:
    line = " ".join(message.split())
    verb = getattr(args, "routine_command", "") or ""
    if args.json:
        answers.emit(answers.error(f"routine {verb}".strip(), code, line))
    print(f"deskhand routine {verb}: {line}", file=sys.stderr)
    return answers.exit_code(code)
