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

Output is text, or with `--json` one object: `{"ok": true, "command": "see", "text": "…",
"images": [{"path": "…", "width": 1429, "height": 804, "media_type": "image/png"}]}`, or on
failure `{"ok": false, "command": "see", "error": "…"}`. Failures also exit non-zero with one
line on stderr: 1 the action failed or was refused, 4 timed out.

Each action has 10 seconds (`--timeout`); `wait` has its own time plus a little. While the app
asks the person in its window, the command waits for their answer.

When Deskhand runs, it acts, through its own gate and permissions. When it does not, the command
acts by itself with the same data dir, rules, saved permission mode and audit log
(`alone.py`); anything that would ask is refused with how to allow it.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

# The parser is built on every start of `deskhand`; what talking to the app needs loads when a
# `deskhand ui` command runs.
if TYPE_CHECKING:
    from desktop.command.protocol import Result, ServerInfo

__all__ = ["add_ui_parser", "run_ui"]

TIMEOUT = 10.0
ANSWER_LIMIT = 600.0  # seconds the command waits for the person's answer in the window
WAIT_SLACK = 5.0
EXIT_FAILED, EXIT_NOT_RUNNING, EXIT_TIMED_OUT = 1, 3, 4  # 3: no app; the command acts itself
NOT_RUNNING = "Deskhand is not running."
TIMED_OUT = "Deskhand did not answer in time (--timeout); the action was stopped."
TIMED_OUT_ALONE = "The action did not finish in time (--timeout); it was stopped."
BROKEN = "The connection to Deskhand broke before it answered."


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


def add_ui_parser(commands: Any) -> None:
    """`deskhand ui` and its commands, under the main parser's subcommands."""
    ui = commands.add_parser(
        "ui",
        help="one screen action sent to the running app (see, click, wait…), its result printed",
        description=(__doc__ or "").split("\n\n", 1)[0],
    )
    ui.add_argument("--data-dir", type=Path, default=argparse.SUPPRESS, help="as for deskhand")
    ui.add_argument("--json", action="store_true", help="print one JSON object")
    ui.add_argument("--timeout", type=float, default=None, help="seconds for the action (10)")
    actions = ui.add_subparsers(dest="ui_command", required=True)
    actions.add_parser("screens", help="the displays")
    actions.add_parser("windows", help="the open windows, front to back, with ids")
    see = actions.add_parser("see", help="a window's elements with ids")
    _target(see)
    see.add_argument("--annotate", action="store_true", help="also save a screenshot with ids")
    see.add_argument("--out", type=Path, help="where --annotate saves its PNG")
    click = actions.add_parser("click", help="press an element")
    _element(click)
    typing = actions.add_parser("type", help="put text in a field (never a password field)")
    _element(typing)
    typing.add_argument("text")
    scroll = actions.add_parser("scroll", help="scroll an element into view")
    _element(scroll)
    wait = actions.add_parser("wait", help="wait for an element to appear (or disappear)")
    _target(wait)
    wait.add_argument("--role", help="button, text field, link, checkbox… or an AT-SPI role")
    wait.add_argument("--label", help="text its name contains")
    wait.add_argument("--gone", action="store_true", help="wait until it disappears")
    wait.add_argument("--for", dest="seconds", type=float, default=5.0, help="seconds (max 30)")
    shot = actions.add_parser("screenshot", help="save a PNG of a window or display")
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


class Failure(Exception):
    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def _server(data_dir: Path | None) -> ServerInfo:
    from desktop.command.protocol import read_info
    from desktop.system.paths import DataPaths

    info = read_info(DataPaths.for_data_dir(data_dir).root)
    if info is None:
        raise Failure(NOT_RUNNING, EXIT_NOT_RUNNING)
    return info


def send(data_dir: Path | None, action: dict[str, Any], timeout: float) -> Result:
    """One action to the running app; its result. Raises `Failure`."""
    from desktop.command.protocol import Request

    info = _server(data_dir)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(timeout)
        try:
            connection.connect(info.socket)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise Failure(NOT_RUNNING, EXIT_NOT_RUNNING) from exc
        request = Request(token=info.token, input=action)
        connection.sendall(request.model_dump_json().encode() + b"\n")
        return _read_result(connection, timeout)
    except TimeoutError as exc:
        raise Failure(TIMED_OUT, EXIT_TIMED_OUT) from exc
    except OSError as exc:
        raise Failure(BROKEN, EXIT_FAILED) from exc
    finally:
        connection.close()


def alone(data_dir: Path | None, action: dict[str, Any], timeout: float) -> Result:
    """No app runs: this process acts, with the person's rules. Raises `Failure`."""
    import asyncio

    from desktop.command.alone import run_alone  # only now: the screen's modules

    try:
        return asyncio.run(asyncio.wait_for(run_alone(data_dir, action), timeout))
    except TimeoutError as exc:
        raise Failure(TIMED_OUT_ALONE, EXIT_TIMED_OUT) from exc


def _read_result(connection: socket.socket, timeout: float) -> Result:
    from desktop.command.protocol import Reply

    buffer = b""
    deadline = time.monotonic() + timeout
    while True:
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            reply = Reply.model_validate_json(line)
            if reply.result is not None:
                return reply.result
            if reply.event is not None and reply.event.event == "asking":
                print(
                    f"Deskhand asks you in its window: {reply.event.summary}",
                    file=sys.stderr,
                    flush=True,
                )
                deadline = time.monotonic() + ANSWER_LIMIT
            elif reply.event is not None:
                deadline = time.monotonic() + timeout
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        connection.settimeout(remaining)
        chunk = connection.recv(1 << 16)
        if not chunk:
            raise Failure(BROKEN, EXIT_FAILED)
        buffer += chunk


def _save_images(result: Result, out: Path | None, command: str) -> list[dict[str, Any]]:
    saved = []
    for index, image in enumerate(result.images):
        if out is not None:
            path = out if index == 0 else out.with_name(f"{out.stem}-{index}{out.suffix}")
        else:
            handle, name = tempfile.mkstemp(prefix=f"deskhand-{command}-", suffix=".png")
            os.close(handle)
            path = Path(name)
        path.write_bytes(base64.b64decode(image.data))
        saved.append(
            {
                "path": str(path.resolve()),
                "width": image.width,
                "height": image.height,
                "media_type": image.media_type,
            }
        )
    return saved


def run_ui(args: argparse.Namespace) -> int:
    command = args.ui_command
    action = _input(args)
    timeout = args.timeout or (
        max(TIMEOUT, args.seconds + WAIT_SLACK) if command == "wait" else TIMEOUT
    )
    data_dir = getattr(args, "data_dir", None)
    try:
        try:
            result = send(data_dir, action, timeout)
        except Failure as failure:
            if failure.code != EXIT_NOT_RUNNING:
                raise
            result = alone(data_dir, action, timeout)
    except Failure as failure:
        return _fail(args, command, str(failure), failure.code)
    if not result.ok:
        error = result.error or result.text.split("\n", 1)[0] or "Failed."
        return _fail(args, command, error, EXIT_FAILED, result.text)
    images = _save_images(result, getattr(args, "out", None), command)
    if args.json:
        print(json.dumps({"ok": True, "command": command, "text": result.text, "images": images}))
    else:
        if command != "screenshot" and result.text:
            print(result.text)
        for image in images:
            print(image["path"])
    return 0


def _fail(args: argparse.Namespace, command: str, message: str, code: int, text: str = "") -> int:
    """One line on stderr; what else the app said (the candidates of a target) on stdout."""
    line = " ".join(message.split())
    if args.json:
        print(json.dumps({"ok": False, "command": command, "error": line, "text": text}))
    else:
        rest = text.split("\n", 1)[1] if "\n" in text else ""
        if rest:
            print(rest)
    print(f"deskhand ui {command}: {line}", file=sys.stderr)
    return code
