"""Command line: `deskhand` (or `python -m desktop`) opens the window; `deskhand doctor` checks the setup."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from desktop import __version__


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="deskhand", description="Deskhand: a desktop assistant that acts."
    )
    parser.add_argument("--version", action="version", version=f"Deskhand {__version__}")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="keep everything Deskhand writes (history, settings, attachments, logs) under this folder",
    )
    parser.add_argument(
        "--permission-mode",
        choices=["ask", "changes", "autonomous"],
        default=None,
        help="when to ask before acting, for this run only: ask every time, ask for changes, "
        "or autonomous (only consequential actions ask)",
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="start offscreen, open the window, check the store, settings, API client and "
        "browser; print one line and exit 0, or say what failed and exit 1",
    )
    commands = parser.add_subparsers(dest="command")
    commands.add_parser(
        "doctor", help="check the setup and print a table; exits non-zero if a required check fails"
    )
    commands.add_parser(
        "install-desktop-entry",
        help="Linux: add Deskhand to your app launcher (a .desktop entry and icons in "
        "~/.local/share, for your user only)",
    )
    return parser.parse_args(argv)


def qt_check() -> object:
    """The Qt platform check lives here: only the composition root may import Qt."""
    from desktop.doctor import Check

    try:
        from PySide6.QtGui import QGuiApplication
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:
        return Check(name="Qt", status="fail", detail=f"PySide6 not importable ({exc.name})")
    app = QApplication.instance() or QApplication([sys.argv[0]])
    platform = QGuiApplication.platformName()
    del app
    return Check(
        name="Qt platform", status="ok", detail=platform or os.environ.get("QT_QPA_PLATFORM", "?")
    )


def doctor(args: argparse.Namespace) -> int:
    from desktop import doctor as checks
    from desktop.workspace import Workspace

    try:
        workspace = Workspace.open(args.data_dir)
    except OSError as exc:
        print(f"Deskhand cannot use its data dir: {exc}", file=sys.stderr)
        return 1

    async def run() -> list[checks.Check]:
        try:
            return await checks.run_checks(workspace, extra=[qt_check()])  # type: ignore[list-item]
        finally:
            await workspace.close()

    results = asyncio.run(run())
    print(checks.render(results))
    return checks.exit_code(results)


def install_desktop_entry() -> int:
    from desktop import desktop_entry

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
        from desktop.stream_process import main as stream_process

        return stream_process(arguments[1:])
    args = parse_args(argv)
    if args.command == "doctor":
        return doctor(args)
    if args.command == "install-desktop-entry":
        return install_desktop_entry()
    if args.self_test:
        from ui.self_test import run_self_test

        return run_self_test(args.data_dir)
    from desktop.app import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
