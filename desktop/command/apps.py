"""`deskhand apps`: the scriptable apps and their dictionaries from a terminal.

- `apps list [--json]`: the scriptable apps this Mac has, each with a one-line purpose (JSON:
  `deskhand.apps.list/1`, one object per app: its name, bundle id, path, whether its dictionary
  was found and read, and how many commands it has).
- `apps dictionary NAME|PATH.sdef [--json]`: a parsed dictionary with each command's risk;
  a `.sdef` path works anywhere (Linux too), for tests and for debugging a dictionary.
- `apps call APP COMMAND --args JSON [--dry-run]`: one command, through the same gate and
  audit as the window. With no window to ask in, a call that would ask is refused, with
  how to allow it (JSON: `deskhand.apps.call/1`).

With `--json` a failure of any of them is the error object of `answers.py`, with its code.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.command.options import shared_options

# The parser is built on every start of `deskhand`; what the commands need (asyncio too) loads
# when one runs: reading a dictionary needs the parser and the data dir's cache, never the tools
# or the gate.
if TYPE_CHECKING:
    from desktop.command.running import Running
    from tools.mac.sdef.catalog import AppCatalog
    from tools.mac.sdef.model import Dictionary


NEEDS_A_MAC = (
    "Running app commands needs macOS (osascript). On this computer, `deskhand apps "
    "dictionary PATH.sdef` still reads a dictionary file."
)
ASK_IN_THE_APP = (
    "Not run: this command needs your approval. Run it from a chat in Deskhand, or allow it in "
    "Settings → Permissions (rule “{key}”) and try again."
)


def add_verbs(apps: argparse.ArgumentParser) -> None:
    """The verbs of `deskhand apps`, on its parser (made by the main parser)."""
    shared = [shared_options()]  # --json, --data-dir, --timeout: also after the command
    verbs = apps.add_subparsers(dest="apps_command", required=True)
    verbs.add_parser("list", help="the scriptable apps on this Mac", parents=shared)
    dictionary = verbs.add_parser(
        "dictionary",
        help="an app's parsed dictionary (an app name, or a path to a .sdef file)",
        parents=shared,
    )
    dictionary.add_argument("app", help="the app's name or bundle id, or PATH.sdef")
    call = verbs.add_parser(
        "call", help="run one command (asks nothing: rules decide)", parents=shared
    )
    call.add_argument("app")
    call.add_argument("verb", metavar="COMMAND", help="the dictionary's command, e.g. delete")
    call.add_argument(
        "--args",
        default="{}",
        help='JSON: {"reference": [...], "direct_parameter": ..., "parameters": {...}}',
    )
    call.add_argument("--dry-run", action="store_true", help="show what would be sent")


def run(args: argparse.Namespace, open_workspace: Callable[[Path | None], Running]) -> int:
    if args.apps_command == "dictionary":
        path = Path(args.app).expanduser()
        if path.suffix == ".sdef" and path.is_file():
            return _dictionary_file(args, path)
    import asyncio

    if args.apps_command != "call":
        return asyncio.run(_bounded(args, _read(args)))
    workspace = open_workspace(args.data_dir)
    try:
        return asyncio.run(_bounded(args, _call(args, workspace)))
    finally:
        workspace.store.close()


async def _bounded(args: argparse.Namespace, command: Coroutine[Any, Any, int]) -> int:
    """The command within `--timeout` seconds, when one is given."""
    import asyncio

    try:
        return await asyncio.wait_for(command, args.timeout)
    except TimeoutError:
        message = f"`deskhand apps {args.apps_command}` did not finish in time (--timeout)."
        return _refuse(args, message, "timeout")


async def _read(args: argparse.Namespace) -> int:
    """`apps list` and `apps dictionary`: an app's dictionary, read or from the data dir's cache."""
    from desktop.system.paths import DataPaths
    from tools.mac.sdef.catalog import AppCatalog

    catalog = AppCatalog(DataPaths.for_data_dir(args.data_dir).cache / "dictionaries")
    if args.apps_command == "list":
        apps = await catalog.apps()
        if args.json:
            from desktop.command import answers

            listed = [
                {
                    "app": app.name,
                    "bundle_id": app.bundle_id or None,
                    "path": app.path,
                    "dictionary": True,  # only apps whose dictionary was read are listed
                    "commands": app.commands,
                    "purpose": app.purpose,
                }
                for app in apps
            ]
            answers.emit(answers.answer("apps.list", {"apps": listed}))
            return 0
        if not apps:
            print("No scriptable apps found (app dictionaries are a macOS feature).")
        for app in apps:
            print(f"{app.name}  ({app.bundle_id or app.path})  {app.purpose}".rstrip())
        return 0
    return await _dictionary(args, catalog)


def _dictionary_file(args: argparse.Namespace, path: Path) -> int:
    """`apps dictionary PATH.sdef`: parsed on a thread of its own within `--timeout`. A file
    needs no event loop (loading asyncio alone takes longer than most parses)."""
    from tools.mac.sdef.errors import SdefError
    from tools.mac.sdef.parse import parse_sdef_file

    outcome: list[Dictionary | SdefError] = []

    def parse() -> None:
        try:
            outcome.append(parse_sdef_file(path))
        except SdefError as exc:
            outcome.append(exc)

    reader = threading.Thread(target=parse, name="sdef", daemon=True)
    reader.start()
    reader.join(args.timeout)
    if not outcome:
        message = f"`deskhand apps {args.apps_command}` did not finish in time (--timeout)."
        return _refuse(args, message, "timeout")
    parsed = outcome[0]
    if isinstance(parsed, SdefError):
        unreadable = f"{path} is not a dictionary Deskhand can read: {parsed}"
        if args.json:
            return _refuse(args, unreadable, "bad_input")
        print(unreadable, file=sys.stderr)
        return 1
    return _show_dictionary(args, path.stem, parsed, None)


async def _dictionary(args: argparse.Namespace, catalog: AppCatalog) -> int:
    """The named app's dictionary, from the data dir's cache or read again."""
    name = str(args.app)
    app = await catalog.find(name)
    if app is None:
        unknown = f"No scriptable app named {name!r}. `deskhand apps list` shows them."
        if args.json:
            return _refuse(args, unknown, "not_found")
        print(unknown)
        return 1
    parsed = await catalog.dictionary(app)
    if parsed is None:
        if args.json:
            return _refuse(args, f"{app.name}'s dictionary could not be read.", "failed")
        print(f"{app.name}'s dictionary could not be read.", file=sys.stderr)
        return 1
    return _show_dictionary(args, app.name, parsed, app.bundle_id)


def _show_dictionary(
    args: argparse.Namespace, name: str, parsed: Dictionary, bundle_id: str | None
) -> int:
    """The dictionary as JSON (`--json`) or as a list of suites, commands and classes."""
    from tools.mac.sdef.export import dictionary_json

    model = dictionary_json(name, parsed, bundle_id=bundle_id)
    if args.json:
        print(json.dumps(model, indent=2, ensure_ascii=False))
        return 0
    for suite in model["suites"]:
        print(f"{suite['name']}")
        for command in suite["commands"]:
            print(f"  {command['name']}  [{command['risk']}]  {command.get('description') or ''}")
        for cls in suite["classes"]:
            print(f"  class {cls['name']} ({len(cls['properties'])} properties)")
    for skipped in model["skipped_includes"]:
        print(f"(skipped include: {skipped})")
    return 0


def _refuse(args: argparse.Namespace, message: str, code: str) -> int:
    """One line on stderr (and the error object with `--json`); the code's exit status."""
    from desktop.command import answers

    if args.json:
        answers.emit(answers.error(f"apps {args.apps_command}", code, message))
    print(message, file=sys.stderr)
    return answers.exit_code(code)


async def _call(args: argparse.Namespace, workspace: Running) -> int:
    from desktop.calls.contract import ToolUse
    from desktop.calls.gated import run_gated
    from desktop.calls.permissions import NO_APPROVER
    from desktop.calls.sources.function_tools import FunctionTools
    from tools.base import InvalidInput

    if workspace.registry.get("app_command") is None:
        return _refuse(args, NEEDS_A_MAC, "unavailable")
    try:
        extra = json.loads(args.args)
    except ValueError:
        extra = None
    if not isinstance(extra, dict):
        return _refuse(args, "--args must be a JSON object.", "bad_input")
    use = ToolUse(
        id="cli",
        name="app_command",
        input={"app": args.app, "command": args.verb, "dry_run": args.dry_run, **extra},
    )
    source = FunctionTools(workspace.registry)
    try:
        call = await source.describe(use, session_id=0)
    except InvalidInput:
        return _refuse(args, "Those arguments do not fit app_command (see --help).", "bad_input")

    try:
        # No window here: a call the gate would ask about is refused, and says how to allow it.
        settled = await run_gated(
            use,
            call,
            source,
            gate=workspace.gate,
            session_id=0,
            attachments_dir=workspace.paths.attachments,
        )
    finally:
        await workspace.toolbox.close()
    text = settled.result.text()
    decision = settled.decision
    if decision is not None and decision.by == "mode" and decision.reason == NO_APPROVER:
        text = ASK_IN_THE_APP.format(key=call.rule_key)
        if args.json:
            return _refuse(args, text, "needs_permission")
    if args.json:
        from desktop.command import answers

        if settled.result.is_error:
            refused = decision is not None and decision.verdict == "deny"
            return _refuse(args, text.split("\n", 1)[0], "refused" if refused else "failed")
        ran = {"app": args.app, "command": args.verb, "dry_run": args.dry_run, "text": text}
        answers.emit(answers.answer("apps.call", ran))
        return 0
    print(text)
    return 1 if settled.result.is_error else 0
