"""What went wrong running a JXA script, classified by Apple Event error number, not message text.

Every failure becomes an `OsaProblem`: a person-facing message with a suggestion, a fixed phrase
for the model (never raw error text, paths or app output), and whether retrying may help. The
raw text is kept in `detail` for logs only.
"""

from __future__ import annotations

import re
from enum import StrEnum

from tools.base import ToolFailure
from tools.data import Data

AUTOMATION_PATH = "System Settings → Privacy & Security → Automation"
ACCESSIBILITY_PATH = "System Settings → Privacy & Security → Accessibility"


class ProblemKind(StrEnum):
    NOT_ALLOWED = "not_allowed"  # -1743, -1744: no Automation permission for the app
    NO_ACCESSIBILITY = "no_accessibility"  # -25211, or -1719 "not allowed assistive access"
    NOT_RUNNING = "not_running"  # -600
    NO_SUCH_OBJECT = "no_such_object"  # -1728, -1719
    NO_ANSWER = "no_answer"  # -1712: the app did not answer the Apple Event in time
    APP_NOT_FOUND = "app_not_found"  # -10814, -10827
    SCRIPT_BUG = "script_bug"  # -2740, -2741 or a JavaScript syntax error: our bug
    GENERIC = "generic"  # any other error number
    TIMEOUT = "timeout"  # our own per-action time limit ran out; the process was killed
    OUTPUT_TOO_LARGE = "output_too_large"
    CRASHED = "crashed"  # the process ended without a classified error
    BAD_OUTPUT = "bad_output"  # the script answered something that is not its JSON: our bug
    UNAVAILABLE = "unavailable"  # no osascript on this machine


NUMBERS: dict[int, ProblemKind] = {
    -1743: ProblemKind.NOT_ALLOWED,
    -1744: ProblemKind.NOT_ALLOWED,
    -25211: ProblemKind.NO_ACCESSIBILITY,  # kAXErrorAPIDisabled
    -600: ProblemKind.NOT_RUNNING,
    -1728: ProblemKind.NO_SUCH_OBJECT,
    -1719: ProblemKind.NO_SUCH_OBJECT,
    -1712: ProblemKind.NO_ANSWER,
    -10814: ProblemKind.APP_NOT_FOUND,
    -10827: ProblemKind.APP_NOT_FOUND,
    -2740: ProblemKind.SCRIPT_BUG,
    -2741: ProblemKind.SCRIPT_BUG,
}

MODEL_PHRASES: dict[ProblemKind, str] = {
    ProblemKind.NOT_ALLOWED: (
        "macOS did not allow Deskhand to control this app (Automation permission). The person "
        "has been told how to allow it in System Settings; do not retry until they say they have."
    ),
    ProblemKind.NO_ACCESSIBILITY: (
        "macOS did not give Deskhand Accessibility permission, which moving and resizing "
        "windows needs. The person has been told how to allow it; do not retry until they say "
        "they have."
    ),
    ProblemKind.NOT_RUNNING: (
        "The app is not running. Open it with the open_app action, or ask the person to, "
        "then try again."
    ),
    ProblemKind.NO_SUCH_OBJECT: (
        "The app could not find the requested item. It may have been moved, renamed or deleted."
    ),
    ProblemKind.NO_ANSWER: (
        "The app did not answer in time. It may be busy or showing a dialog; try again later."
    ),
    ProblemKind.APP_NOT_FOUND: "No app with that name is installed on this Mac.",
    ProblemKind.SCRIPT_BUG: (
        "The action failed because of a bug in Deskhand. Tell the person; do not retry."
    ),
    ProblemKind.GENERIC: "The app reported an error and the action did not complete.",
    ProblemKind.TIMEOUT: (
        "The action did not finish in time and was stopped. It may or may not have taken "
        "effect; check before trying again."
    ),
    ProblemKind.OUTPUT_TOO_LARGE: (
        "The app's answer was too large to use. Ask for less at a time (a smaller limit)."
    ),
    ProblemKind.CRASHED: (
        "The action stopped unexpectedly. It may or may not have taken effect; check before "
        "trying again."
    ),
    ProblemKind.BAD_OUTPUT: (
        "The action returned an unexpected answer because of a bug in Deskhand. Tell the "
        "person; do not retry."
    ),
    ProblemKind.UNAVAILABLE: "macOS scripting is not available on this computer.",
}

RETRYABLE: frozenset[ProblemKind] = frozenset(
    {
        ProblemKind.NOT_RUNNING,
        ProblemKind.NO_ANSWER,
        ProblemKind.GENERIC,
        ProblemKind.TIMEOUT,
        ProblemKind.CRASHED,
    }
)


class OsaProblem(Data, frozen=True):
    """One failure, as the person and the model each see it."""

    kind: ProblemKind
    number: int | None = None
    app: str | None = None
    message: str
    suggestion: str
    model_phrase: str
    retryable: bool
    detail: str = ""  # raw stderr or error text, for logs only

    @property
    def for_person(self) -> str:
        return f"{self.message} {self.suggestion}"


class OsaError(ToolFailure):
    """Base of the osa package's errors; carries the classified problem."""

    def __init__(self, problem: OsaProblem) -> None:
        super().__init__(problem.kind.value)
        self.problem = problem


def _person_text(kind: ProblemKind, app: str | None, number: int | None) -> tuple[str, str]:
    name = app or "macOS"
    the_app = app or "the app"
    match kind:
        case ProblemKind.NOT_ALLOWED:
            return (
                f"Deskhand isn't allowed to control {the_app}.",
                f"Open {AUTOMATION_PATH}, find Deskhand in the list and turn on {the_app}. "
                "Then try again.",
            )
        case ProblemKind.NO_ACCESSIBILITY:
            return (
                "Deskhand isn't allowed to arrange windows (Accessibility).",
                f"Open {ACCESSIBILITY_PATH}, turn on Deskhand, then try again.",
            )
        case ProblemKind.NOT_RUNNING:
            return f"{name} isn't running.", f"Open {the_app} and try again."
        case ProblemKind.NO_SUCH_OBJECT:
            return (
                f"{name} couldn't find what was asked for.",
                f"It may have been moved, renamed or deleted; check in {the_app}.",
            )
        case ProblemKind.NO_ANSWER:
            return (
                f"{name} didn't answer in time.",
                f"It may be busy or showing a dialog. Check {the_app}, then try again.",
            )
        case ProblemKind.APP_NOT_FOUND:
            return (
                "That app isn't installed on this Mac.",
                "Check the app's name in the Applications folder.",
            )
        case ProblemKind.SCRIPT_BUG:
            return (
                "A Deskhand script has a syntax error.",
                "This is a bug in Deskhand, not something you did; please report it.",
            )
        case ProblemKind.TIMEOUT:
            return (
                f"{name} took too long, so Deskhand stopped waiting.",
                f"It may be busy or showing a dialog. Check {the_app}, then try again.",
            )
        case ProblemKind.OUTPUT_TOO_LARGE:
            return (
                f"The answer from {name} was too large to use.",
                "Ask for less at a time.",
            )
        case ProblemKind.CRASHED:
            return (
                f"The script working with {name} stopped unexpectedly.",
                "Try again; if it keeps happening, run `deskhand doctor`.",
            )
        case ProblemKind.BAD_OUTPUT:
            return (
                f"A Deskhand script for {name} answered something unexpected.",
                "This is a bug in Deskhand, not something you did; please report it.",
            )
        case ProblemKind.UNAVAILABLE:
            return (
                "macOS scripting (osascript) isn't available on this computer.",
                "The Mac tools work only on macOS.",
            )
        case _:
            code = f" (error {number})" if number is not None else ""
            return (
                f"{name} reported an error{code}.",
                f"Try again; if it keeps happening, check {the_app}.",
            )


def problem(
    kind: ProblemKind, *, app: str | None = None, number: int | None = None, detail: str = ""
) -> OsaProblem:
    message, suggestion = _person_text(kind, app, number)
    return OsaProblem(
        kind=kind,
        number=number,
        app=app,
        message=message,
        suggestion=suggestion,
        model_phrase=MODEL_PHRASES[kind],
        retryable=kind in RETRYABLE,
        detail=detail,
    )


def classify(
    number: int | None, *, syntax: bool = False, app: str | None = None, detail: str = ""
) -> OsaProblem:
    """The problem for an Apple Event error number (and whether osascript called it a syntax error)."""
    if syntax:
        kind = ProblemKind.SCRIPT_BUG
    elif number is None:
        kind = ProblemKind.CRASHED
    elif number == -1719 and "assistive access" in detail.lower():
        # System Events reuses "invalid index" for a missing Accessibility permission; only
        # its text tells them apart.
        kind = ProblemKind.NO_ACCESSIBILITY
    else:
        kind = NUMBERS.get(number, ProblemKind.GENERIC)
    return problem(kind, app=app, number=number, detail=detail)


# osascript ends an error with "(NUMBER)", after a label: "FILE: execution error: Error: Error:
# Not authorized to send Apple events to Mail. (-1743)"; JXA compile errors read "FILE:0:42:
# syntax error: Error on line 3: SyntaxError: ... (-2700)" (older systems say "script error").
_ERROR_LINE = re.compile(
    r"(?P<label>execution error|syntax error|script error):.*\((?P<number>-?\d+)\)\s*$"
)
_TRAILING_NUMBER = re.compile(r"\((?P<number>-\d+)\)\s*$")


def parse_stderr(stderr: str) -> tuple[int | None, bool]:
    """The error number in osascript's stderr (None if none) and whether it is a syntax error.

    The last error line wins: scripts may log other lines (console.log) before failing.
    """
    lines = [line for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        match = _ERROR_LINE.search(line)
        if match:
            return int(match["number"]), match["label"] != "execution error"
    for line in reversed(lines):
        match = _TRAILING_NUMBER.search(line)
        if match:
            return int(match["number"]), False
    return None, False


def from_stderr(stderr: str, *, app: str | None = None) -> OsaProblem:
    number, syntax = parse_stderr(stderr)
    return classify(number, syntax=syntax, app=app, detail=stderr[-4000:])
