"""Command line: `deskhand` (or `python -m desktop`) opens the window; `deskhand doctor` checks
the setup; `deskhand mcp` serves this machine's tools to MCP clients over stdio; `deskhand ui …`
sends one screen action to the running app; `deskhand apps …` reads Mac apps' dictionaries;
`deskhand routine …` saves, lists, shows, runs and schedules routines.
`deskhand connector …` adds remote MCP servers that sign in (OAuth) and lists them.

`--json`, `--data-dir` and `--timeout` go before or after any command (`command/options.py`);
each command loads only what it uses, when it runs."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from desktop.command.options import Parser, add_global_options, shared_options

# Each command imports what it uses when it runs (json, shutil and textwrap too, which only the
# `mcp` parser and `doctor` use): `deskhand --version` loads no more than this.
if TYPE_CHECKING:
    from pathlib import Path

    from desktop.command.doctor import Check
    from desktop.workspace import Workspace


class _Version(argparse.Action):
    """`--version`, as argparse's own prints it, with the version looked up only when asked for
    (reading the package's metadata costs more than building the whole parser)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        kwargs.update(nargs=0, default=argparse.SUPPRESS)
        super().__init__(option_strings, argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_args: object, **_kwargs: object) -> None:
        from desktop import __version__

        print(f"Deskhand {__version__}")
        parser.exit()


def _top_options(parser: argparse.ArgumentParser) -> None:
    """The options of `deskhand` itself (the window's), before any command."""
    parser.add_argument("--version", action=_Version, help="show program's version number and exit")
    add_global_options(parser, top=True)
    parser.add_argument(
        "--permission-mode",
        choices=["ask", "changes", "autonomous"],
        default=None,
        help="when to ask before acting, for this run only: ask every time, ask for changes, "
        "or autonomous (only consequential actions ask)",
    )
    parser.add_argument(
        "--send",
        metavar="TEXT",
        default=None,
        help="open the window and start a new chat with this message",
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="start offscreen, open the window, check the store, settings, API client and "
        "browser; print one line and exit 0, or say what failed and exit 1",
    )


class _NotTheWindow(Exception):
    """A line the window's own options do not read: the full parser reads it."""


class _WindowParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _NotTheWindow(message)


def _window_arguments(arguments: list[str]) -> argparse.Namespace | None:
    """A line naming no command (the window's launch, most of all of them), read with the
    window's own options only; None for any other line. Building the commands' parsers (and
    the `mcp` help's ready-made config, which looks along PATH) costs the window's start
    ~3 ms; the full parser reads the rest, help and errors included, as before."""
    if any(argument in ("-h", "--help") for argument in arguments):
        return None
    parser = _WindowParser(prog="deskhand", add_help=False)
    _top_options(parser)
    try:
        args, rest = parser.parse_known_args(arguments)
    except _NotTheWindow:
        return None
    if rest:
        return None  # a command, or something only the full parser can say is wrong
    args.command = None
    return args


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    arguments = sys.argv[1:] if argv is None else argv
    return _window_arguments(arguments) or full_parser(arguments).parse(arguments)


# The commands, in the order `deskhand -h` lists them, with the line it gives each.
COMMANDS = {
    "doctor": "check the setup and print a table; exits non-zero if a required check fails",
    "ui": "one screen action sent to the running app (see, click, wait…), its result printed",
    "mcp": "serve this machine's tools (browser, Mac apps) to MCP clients over stdio",
    "apps": "scriptable Mac apps: list, read a dictionary, call",
    "routine": "routines: save a finished chat as one, list, show, run (in the app), schedule",
    "connector": "remote MCP servers that sign in: add, sign-in, list, tools, sign-out, remove",
    "install-desktop-entry": "Linux: add Deskhand to your app launcher (a .desktop entry and "
    "icons in ~/.local/share, for your user only)",
}


def full_parser(line: Sequence[str] | None = None) -> Parser:
    """Every command's parser, under the window's options. Given the `line` it is to read, only
    the commands that line names get their own options and subcommands: the others are listed
    with their help, all that `deskhand -h` shows of them (building `ui`'s, with the modules it
    loads, takes longer than `deskhand apps dictionary` takes to read a dictionary)."""
    parser = Parser(prog="deskhand", description="Deskhand: a desktop assistant that acts.")
    _top_options(parser)
    commands = parser.add_subparsers(dest="command")
    shared = [shared_options()]
    for name, summary in COMMANDS.items():
        command = commands.add_parser(name, help=summary, parents=shared)
        if line is not None and name not in line:
            continue
        if name == "ui":
            from desktop.command.cli import add_ui_commands

            add_ui_commands(command)
        elif name == "mcp":
            _mcp_options(command)
        elif name == "apps":
            from desktop.command.apps import add_verbs

            add_verbs(command)
        elif name == "routine":
            from desktop.command import routines

            routines.add_verbs(command)
        elif name == "connector":
            from desktop.command.connector import add_verbs as connector_verbs

            connector_verbs(command)
    return parser


def _mcp_options(mcp: argparse.ArgumentParser) -> None:
    import textwrap

    mcp.description = textwrap.fill(
        "Serve Deskhand's tools to an MCP client (Claude Desktop, an IDE...) over "
        "stdin/stdout. Every call passes your permission rules and is in the audit log; a "
        "call that would ask is asked through the client (MCP elicitation) if it can, and "
        "refused otherwise, with what to change in Deskhand to allow it.",
        width=80,
    )
    mcp.epilog = MCP_EPILOG.format(entry=mcp_config_entry())
    mcp.formatter_class = argparse.RawDescriptionHelpFormatter
    # Also accepted after `mcp`, where a client's config usually puts them.
    mcp.add_argument(
        "--permission-mode",
        choices=["ask", "changes", "autonomous"],
        default=argparse.SUPPRESS,
        help="as for deskhand itself (consequential actions always ask)",
    )


MCP_EPILOG = """To use it from Claude Desktop, add this to claude_desktop_config.json (Settings →
Developer → Edit Config), then restart Claude Desktop:

{entry}
"""


def mcp_config_entry() -> str:
    """A ready-to-paste Claude Desktop config entry that starts this Deskhand's MCP server."""
    import json
    import shutil

    if getattr(sys, "frozen", False):  # the app bundle's own executable
        command, args = sys.executable, ["mcp"]
    elif found := shutil.which("deskhand"):
        command, args = found, ["mcp"]
    else:
        command, args = sys.executable, ["-m", "desktop", "mcp"]
    entry = {"mcpServers": {"deskhand": {"command": command, "args": args}}}
    return json.dumps(entry, indent=2)


def qt_checks() -> list[Check]:
    """Qt and the display. They live here: only the composition root may import Qt."""
    from desktop.command.doctor import Check, display_check

    try:
        from PySide6.QtGui import QGuiApplication
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:
        return [Check(name="Qt", status="fail", detail=f"PySide6 not importable ({exc.name})")]
    app = QApplication.instance() or QApplication([sys.argv[0]])
    platform = QGuiApplication.platformName() or os.environ.get("QT_QPA_PLATFORM", "?")
    del app
    return [Check(name="Qt platform", status="ok", detail=platform), display_check(platform)]


def open_workspace(data_dir: Path | None) -> Workspace:
    """The workspace of a command that needs the tools (loaded only then)."""
    from desktop.workspace import Workspace

    return Workspace.open(data_dir)


def doctor(args: argparse.Namespace) -> int:
    import asyncio
    import json

    from desktop.command import doctor as checks
    from desktop.workspace import Workspace

    checks.use_offscreen_without_display()  # before any Qt object: without a display Qt aborts
    try:
        workspace = Workspace.open(args.data_dir)
    except OSError as exc:
        message = f"Deskhand cannot use its data dir: {exc}"
        if args.json:
            from desktop.command import answers

            answers.emit(answers.error("doctor", "bad_input", message))
        print(message, file=sys.stderr)
        return 1

    async def run() -> list[checks.Check]:
        try:
            subject = checks.Subject(
                paths=workspace.paths,
                keys=workspace.keys,
                settings=workspace.settings,
                model_client=lambda: workspace.agent.client(),
            )
            return await checks.run_checks(subject, extra=qt_checks(), limit=args.timeout)
        finally:
            await workspace.close()

    results = asyncio.run(run())
    if args.json:
        print(json.dumps(checks.as_json(results), ensure_ascii=False))
    else:
        print(checks.render(results))
    return checks.exit_code(results)


def serve_mcp(args: argparse.Namespace) -> int:
    """`deskhand mcp`: no window; stdout carries MCP messages, so logs go to a file only."""
    import asyncio
    import logging
    import logging.handlers

    from desktop.mcp.server import serve
    from desktop.system.login_path import adopt_login_path
    from desktop.system.playwright_env import configure_playwright
    from desktop.system.settings.permissions import Mode
    from desktop.workspace import Workspace

    configure_playwright()
    try:
        workspace = Workspace.open(
            args.data_dir, mode=Mode(args.permission_mode) if args.permission_mode else None
        )
    except OSError as exc:
        print(f"Deskhand cannot use its data dir: {exc}", file=sys.stderr)
        return 1
    handler = logging.handlers.RotatingFileHandler(
        workspace.paths.logs / "deskhand-mcp.log", maxBytes=2_000_000, backupCount=3
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])

    async def run() -> None:
        await adopt_login_path()
        await serve(workspace, limit=args.timeout, data_dir=args.data_dir)

    asyncio.run(run())
    return 0


def install_desktop_entry() -> int:
    from desktop.system import desktop_entry

    if not sys.platform.startswith("linux"):
        print("The app launcher entry is for Linux; on a Mac, use Deskhand.app.", file=sys.stderr)
        return 1
    program = desktop_entry.program_path()
    changed = desktop_entry.install(program)
    where = desktop_entry.data_home() / "applications"
    print(
        f"Deskhand is in your app launcher ({where}, starting {program})."
        if changed
        else "Deskhand is already in your app launcher."
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["--stream-process"]:  # started by the app itself, never by a person
        from desktop.model_stream.process import main as stream_process

        return stream_process(arguments[1:])
    args = parse_args(argv)
    if args.command == "doctor":
        return doctor(args)
    if args.command == "mcp":
        return serve_mcp(args)
    if args.command == "install-desktop-entry":
        return install_desktop_entry()
    if args.command == "apps":
        from desktop.command import apps as apps_cli

        return apps_cli.run(args, open_workspace)
    if args.command == "routine":
        from desktop.command import routines as routines_cli

        return routines_cli.run(args, open_workspace)
    if args.command == "connector":
        from desktop.command import connector

        return connector.run(args)
    if args.command == "ui":
        from desktop.command.cli import run_ui

        return run_ui(args)
    if args.self_test:
        from ui.self_test import run_self_test

        return run_self_test(args.data_dir)
    # Building the window makes many objects and frees few: the collector's passes over them
    # only delay it (by about a tenth of its start). It is on again once the window is painted
    # (desktop/app.py), and what start-up built is then kept out of its sight (`gc.freeze`).
    gc.disable()
    # PySide6 reads the source of every module imported after it (looking for its `__feature__`
    # switches) unless told not to: the app's Qt-free core loads first, then PySide6 with its
    # probe answered (ui/feature_probe.py), then the window's modules.
    import desktop.workspace  # noqa: F401
    import ui.thread.markdown.blocks  # noqa: F401  (the thread's Markdown parser: no Qt either)
    from ui.feature_probe import skip_feature_probe

    skip_feature_probe()
    from desktop.app import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
