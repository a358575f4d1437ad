"""The options every command takes, before or after its name: `--json`, `--data-dir`, `--timeout`.

`deskhand --json ui see`, `deskhand ui --json see` and `deskhand ui see --json` are the same
command. The top parser holds the defaults; every subcommand's parser takes the same options
with no default of its own (`SUPPRESS`), so one given anywhere reaches the namespace and one not
given leaves the top's value alone. A line argparse cannot read exits 2 with its usage, and
with `--json` anywhere on it also prints the error object (`bad_input`) a script expects.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NoReturn

__all__ = ["Parser", "add_global_options", "shared_options"]

JSON_HELP = "print one JSON object (its schema is named in it: schemas/ in the repository)"
DATA_DIR_HELP = (
    "keep everything Deskhand writes (history, settings, attachments, logs) under this folder"
)
TIMEOUT_HELP = (
    "seconds the command may take (ui: the action, 10 by default; doctor: each check; "
    "mcp: each tool call; apps: the command; routine run: starting Deskhand, 60 by default, "
    "never the run itself; connector add and sign-in: the wait for the browser, 300 by default)"
)


def add_global_options(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """The three options on `parser`; `top`: with their defaults (the main parser only)."""

    def default(value: object) -> object:
        return value if top else argparse.SUPPRESS

    parser.add_argument("--json", action="store_true", default=default(False), help=JSON_HELP)
    parser.add_argument(
        "--data-dir", type=Path, default=default(None), metavar="DIR", help=DATA_DIR_HELP
    )
    parser.add_argument(
        "--timeout", type=float, default=default(None), metavar="SECONDS", help=TIMEOUT_HELP
    )


class Parser(argparse.ArgumentParser):
    """The command line's parser (its subcommands' too: argparse makes them of the same class)."""

    json_errors = False  # `--json` is on the line being parsed (set by `parse`)

    def parse(self, argv: list[str]) -> argparse.Namespace:
        Parser.json_errors = "--json" in argv
        return self.parse_args(argv)

    def error(self, message: str) -> NoReturn:
        if Parser.json_errors:
            from desktop.command import answers

            command = self.prog.removeprefix("deskhand").strip() or "deskhand"
            answers.emit(answers.error(command, "bad_input", message))
        super().error(message)


def shared_options() -> Parser:
    """A parent parser for `add_parser(..., parents=[shared_options()])`."""
    parent = Parser(add_help=False)
    add_global_options(parent)
    return parent
