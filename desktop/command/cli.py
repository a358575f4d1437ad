"""`deskhand ui …`: one screen action per call, sent to the running app (or, when none runs,
run by the command itself with the same rules), its result printed.

    deskhand ui screens | windows
    deskhand ui see [TARGET] [--annotate [--out FILE]]
    deskhand ui click ID | type ID TEXT | scroll ID         [--snapshot S]
    deskhand ui wait [TARGET] [--role R] [--label L] [--gone] [--for SECONDS]
    deskhand ui screenshot [TARGET] [--out FILE]

TARGET is `--app NAME [--window-index N] [--title TEXT]`, `--title TEXT`, `--window-id ID` or
`--display N`; nothing means the front-most window. Ids come from the latest `see` (the app keeps
the command line's snapshots apart from its chats'; without the app, `snapshots.py` keeps them
in the data dir between commands).

Output is text, or with `--json` (anywhere on the line) one object of a versioned schema:
`{"schema": "deskhand.ui.see/1", "ok": true, "snapshot": "s3", "elements": [...], ...}`, built
from the tool's own data (`tools/screen/see/report.py`), never from its prose; on failure
`{"schema": "deskhand.error/1", "ok": false, "error": {"code", "message", "candidates"}}`
(`answers.py`). Failures also print one line on stderr and exit with their code's status.

Each action has 10 seconds (`--timeout`); `wait` has its own time plus a little. While the app
asks the person in its window, the command waits for their answer.

When Deskhand runs, it acts, through its own gate and permissions. When it does not, the command
acts by itself with the same data dir, rules, saved permission mode and audit log
(`alone.py`); anything that would ask is refused with how to allow it.
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from desktop.command import answers
from desktop.command.client import ActionResult, Failure, alone, send
from desktop.command.options import shared_options

__all__ = ["add_ui_commands", "run_ui"]

TIMEOUT = 10.0
WAIT_SLACK = 5.0


def _target(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("target (default: the front-most window)")
    group.add_argument("--app", help="an app by name (or X11 class)")
    group.add_argument(
        "--window-index", type=int, help="with --app: which of its windows (0 = front)"
    )
    group.add_argument("--title", help="a window whose title contains this text")
    group.add_argument("--window-id", type=int, help="a window id, as `ui windows` lists them")
    group.add_argument("--display", type=int, help="a display index: all of it")


def _element(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", help="an element id from the latest `ui see` (B1, T2…)")
    parser.add_argument("--snapshot", help="the snapshot the id is from (default: the latest)")


def add_ui_commands(ui: argparse.ArgumentParser) -> None:
    """The commands of `deskhand ui`, on its parser (made by the main parser)."""
    shared = [shared_options()]
    ui.description = (__doc__ or "").split("\n\n", 1)[0]
    actions = ui.add_subparsers(dest="ui_command", required=True)
    actions.add_parser(
        "screens", help="the displays, in the computer tool's order (left to right)", parents=shared
    )
    actions.add_parser("windows", help="the open windows, front to back, with ids", parents=shared)
    see = actions.add_parser("see", help="a window's elements with ids", parents=shared)
    _target(see)
    see.add_argument("--annotate", action="store_true", help="also save a screenshot with ids")
    see.add_argument("--out", type=Path, help="where --annotate saves its PNG")
    click = actions.add_parser("click", help="press an element", parents=shared)
    _element(click)
    typing = actions.add_parser(
        "type", help="put text in a field (never a password field)", parents=shared
    )
    _element(typing)
    typing.add_argument("text")
    scroll = actions.add_parser("scroll", help="scroll an element into view", parents=shared)
    _element(scroll)
    wait = actions.add_parser(
        "wait", help="wait for an element to appear (or disappear)", parents=shared
    )
    _target(wait)
    wait.add_argument("--role", help="button, text field, link, checkbox… or an AT-SPI role")
    wait.add_argument("--label", help="text its name contains")
    wait.add_argument("--gone", action="store_true", help="wait until it disappears")
    wait.add_argument("--for", dest="seconds", type=float, default=5.0, help="seconds (max 30)")
    shot = actions.add_parser(
        "screenshot", help="save a PNG of a window or display", parents=shared
    )
    _target(shot)
    shot.add_argument("--out", type=Path, help="the PNG's path (default: a new temporary file)")


def _input(args: argparse.Namespace) -> dict[str, Any]:
    """The `screen` tool's input for a command."""
    command = args.ui_command
    given: dict[str, Any] = {}
    for name in ("app", "window_index", "title", "window_id", "display"):
        value = getattr(args, name, None)
        if value is not None:
            given[name] = value
    match command:
        case "screens" | "windows":
            return {"action": command}
        case "see":
            return {"action": "see", **given, **({"annotate": True} if args.annotate else {})}
        case "screenshot":
            return {"action": "screenshot", **given}
        case "wait":
            for name in ("role", "label"):
                if getattr(args, name) is not None:
                    given[name] = getattr(args, name)
            return {"action": "wait", **given, "gone": args.gone, "timeout": args.seconds}
    element: dict[str, Any] = {"id": args.id}
    if args.snapshot:
        element["snapshot"] = args.snapshot
    if command == "click":
        return {"action": "click", **element}
    if command == "type":
        return {"action": "set_value", **element, "value": args.text}
    return {"action": "scroll_to", **element}


def _save_images(result: ActionResult, out: Path | None, command: str) -> list[dict[str, Any]]:
    saved = []
    for index, image in enumerate(result.images):
        if out is not None:
            path = out if index == 0 else out.with_name(f"{out.stem}-{index}{out.suffix}")
        else:
            handle, name = tempfile.mkstemp(prefix=f"deskhand-{command}-", suffix=".png")
            os.close(handle)
            path = Path(name)
        path.write_bytes(base64.b64decode(image["data"]))
        saved.append(
            {
                "path": str(path.resolve()),
                "width": image["width"],
                "height": image["height"],
                "media_type": image["media_type"],
            }
        )
    return saved


def run_ui(args: argparse.Namespace) -> int:
    command = args.ui_command
    action = _input(args)
    timeout = args.timeout or (
        max(TIMEOUT, args.seconds + WAIT_SLACK) if command == "wait" else TIMEOUT
    )
    data_dir = args.data_dir
    try:
        try:
            result = send(data_dir, action, timeout)
        except Failure as failure:
            if failure.code != "not_running":
                raise
            result = alone(data_dir, action, timeout)
    except Failure as failure:
        return _fail(args, command, str(failure), failure.code)
    if not result.ok:
        error = result.error or result.text.split("\n", 1)[0] or "Failed."
        candidates = (result.data or {}).get("candidates") or []
        return _fail(args, command, error, result.code or "failed", result.text, candidates)
    images = _save_images(result, getattr(args, "out", None), command)
    if args.json:
        answers.emit(answers.answer(f"ui.{command}", _payload(command, result, images)))
    else:
        if command != "screenshot" and result.text:
            print(result.text)
        for image in images:
            print(image["path"])
    return 0


ACTS = ("click", "type", "scroll")  # their answers say what the action really did (schema /2)


def _payload(command: str, result: ActionResult, images: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer's fields: the tool's data, with where this command saved its image, and
    for an action what it really did (`outcome`: its kind or null, `changes`, `note`)."""
    data = dict(result.data or {})
    data.pop("code", None)
    if command in ACTS:
        outcome = result.outcome or {}
        changes = outcome.get("changes")
        data["outcome"] = outcome.get("kind")
        data["changes"] = [str(line) for line in changes] if isinstance(changes, list) else []
        data["note"] = str(outcome.get("note") or "")
    if command == "see":
        image = data.get("image")
        data["image"] = {"path": images[0]["path"], **image} if image and images else None
    elif command == "screenshot" and images:
        data["path"] = images[0]["path"]
        data["width"], data["height"] = images[0]["width"], images[0]["height"]
    return data


def _fail(
    args: argparse.Namespace,
    command: str,
    message: str,
    code: str,
    text: str = "",
    candidates: list[dict[str, Any]] | None = None,
) -> int:
    """One line on stderr; what else the app said (the candidates of a target) on stdout."""
    line = " ".join(message.split())
    if code == "not_running":  # never reaches here: the command acts itself then
        code = "failed"
    if args.json:
        answers.emit(answers.error(command, code, _whole(line), candidates or []))
    else:
        rest = text.split("\n", 1)[1] if "\n" in text else ""
        if rest:
            print(rest)
    print(f"deskhand ui {command}: {line}", file=sys.stderr)
    return answers.exit_code(code)


def _whole(line: str) -> str:
    """The message without a last sentence that announces the lines after it ("The windows
    open now:"): in JSON those are the candidates, or not given."""
    if not line.endswith(":"):
        return line
    cut = line.rfind(". ")
    return line[: cut + 1] if cut > 0 else line[:-1] + "."
