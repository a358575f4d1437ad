"""Classification by Apple Event error number, and the Automation log."""

from __future__ import annotations

import pytest

from tools.mac.osa.automation import AUTOMATION_SETTINGS_URL, AutomationLog
from tools.mac.osa.errors import (
    MODEL_PHRASES,
    ProblemKind,
    classify,
    from_stderr,
    parse_stderr,
    problem,
)

# What osascript prints, as reported from real Macs (file runs put the path first; `-e` runs
# and AppleScript put character ranges first).
REAL_STDERR = [
    (
        "/tmp/a.js: execution error: Error: Error: Not authorized to send Apple events to "
        "Mail. (-1743)",
        -1743,
        False,
    ),
    ("execution error: Error: Error: Application isn't running. (-600)", -600, False),
    ("/x/y.js: execution error: Error: Error: Can't get object. (-1728)", -1728, False),
    (
        "96:148: execution error: Not authorised to send Apple events to System Events. (-1743)",
        -1743,
        False,
    ),
    (
        "152:174: syntax error: Error on line 3: SyntaxError: Unexpected token ')' (-2700)",
        -2700,
        True,
    ),
    (
        "/a/VLCControl.scpt:1214:1219: script error: Expected end of line, etc. but found "
        "identifier. (-2741)",
        -2741,
        True,
    ),
    ("execution error: Error: TypeError: null is not an object (-2700)", -2700, False),
    ("0:0: execution error: 未获得授权将Apple事件发送给Terminal。 (-1743)", -1743, False),
]


@pytest.mark.parametrize(("stderr", "number", "syntax"), REAL_STDERR)
def test_parses_real_osascript_stderr(stderr: str, number: int, syntax: bool) -> None:
    assert parse_stderr(stderr) == (number, syntax)


def test_the_last_error_line_wins_over_logged_lines() -> None:
    stderr = (
        "progress (-1) ok\nx.js: execution error: Error: Error: AppleEvent timed out. (-1712)\n"
    )
    assert parse_stderr(stderr) == (-1712, False)
    assert parse_stderr("Segmentation fault\n") == (None, False)


def test_classification_is_by_number_not_by_message() -> None:
    # A message that reads like a permission problem with another number stays what its number says.
    lying = "execution error: Error: Error: Not authorized to send Apple events to Mail. (-1728)"
    assert from_stderr(lying, app="Mail").kind is ProblemKind.NO_SUCH_OBJECT
    assert from_stderr("Segmentation fault", app="Mail").kind is ProblemKind.CRASHED
    assert classify(-2700, syntax=True).kind is ProblemKind.SCRIPT_BUG
    assert classify(-31337).kind is ProblemKind.GENERIC


@pytest.mark.parametrize("kind", list(ProblemKind))
def test_every_class_has_words_for_both_readers(kind: ProblemKind) -> None:
    found = problem(kind, app="Calendar", number=-1)
    assert found.message and found.suggestion
    assert found.model_phrase == MODEL_PHRASES[kind]
    # The model gets a fixed phrase: no app names, numbers or raw text.
    assert "Calendar" not in found.model_phrase and "-1" not in found.model_phrase


def test_retryable_flags() -> None:
    retry = {kind for kind in ProblemKind if problem(kind).retryable}
    assert retry == {
        ProblemKind.NOT_RUNNING,
        ProblemKind.NO_ANSWER,
        ProblemKind.GENERIC,
        ProblemKind.TIMEOUT,
        ProblemKind.CRASHED,
    }


def test_not_allowed_tells_the_exact_settings_path() -> None:
    found = classify(-1744, app="Notes")
    assert found.for_person == (
        "Deskhand isn't allowed to control Notes. Open System Settings → Privacy & Security → "
        "Automation, find Deskhand in the list and turn on Notes. Then try again."
    )
    assert AUTOMATION_SETTINGS_URL == (
        "x-apple.systempreferences:com.apple.preference.security?Privacy_Automation"
    )


def test_automation_log_keeps_what_is_known() -> None:
    log = AutomationLog({"Mail": "allowed", "Bogus": "maybe"})
    changes: list[tuple[str, str]] = []
    unsubscribe = log.subscribe(lambda app, state: changes.append((app, state)))
    log.observe("Mail", classify(-600, app="Mail"))  # tells nothing new about permission
    log.observe("Notes", classify(-600, app="Notes"))
    log.observe("Notes", classify(-1743, app="Notes"))
    log.observe("Notes", None)
    unsubscribe()
    log.observe("Finder", None)
    assert log.states() == {
        "Mail": "allowed",
        "Notes": "allowed",
        "Finder": "allowed",
    }
    assert changes == [("Notes", "unknown"), ("Notes", "denied"), ("Notes", "allowed")]
    assert log.state("Calendar") is None


@pytest.mark.parametrize(
    "stderr",
    [
        "execution error: System Events got an error: osascript is not allowed assistive "
        "access. (-1719)",
        "x.js: execution error: Error: Error: An error occurred. (-25211)",
    ],
)
def test_a_missing_accessibility_permission_says_where_to_allow_it(stderr: str) -> None:
    found = from_stderr(stderr, app="System Events")
    assert found.kind is ProblemKind.NO_ACCESSIBILITY and not found.retryable
    assert "Privacy & Security → Accessibility" in found.for_person
    assert "Accessibility" in found.model_phrase and stderr not in found.model_phrase


def test_an_invalid_index_is_still_a_missing_object() -> None:
    found = from_stderr("execution error: Error: Error: Invalid index. (-1719)", app="Notes")
    assert found.kind is ProblemKind.NO_SUCH_OBJECT
