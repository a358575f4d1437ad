"""What the `macos` and `apps` tools' changing actions really left behind, from read-backs.

Each script reads the object it made back by its id (a reminder in its list, a note in its
folder, a draft, the clipboard, the app in front, Finder's selection, a window's frame, an app
that quit; a sent mail is looked for in Sent afterwards) and hands what it found here; these
functions compare it with what was asked and say it in `Effect:` lines
(tools/mac/readback.py). They take plain values, so each tool's table stays the one place that
knows its actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from tools.mac.readback import (
    characters,
    differences,
    minute,
    not_confirmed,
    read_back,
    shown,
)
from tools.outcome import Outcome

NONE = "none"


def _local(ms: float) -> datetime:
    return datetime.fromtimestamp(ms / 1000).astimezone()


def text_difference(what: str, found: str, asked: str) -> list[str]:
    """How a text read back differs from the text asked: by length, or by its characters."""
    if found == asked:
        return []
    if len(found) != len(asked):
        return [f"{what} is {characters(len(found))}, not {characters(len(asked))}"]
    return [f"{what} holds other text of the same length"]


def _due_found(found: dict[str, Any], all_day: bool | None) -> str:
    """The due date read back, shown like the asked one: a day, or a day and a time."""
    due, allday = found.get("due"), found.get("allday_due")
    if all_day is not False and isinstance(allday, int | float):
        return _local(allday).date().isoformat()
    if isinstance(due, int | float):
        return _local(due).date().isoformat() if all_day else minute(_local(due))
    return NONE


def reminder(
    *,
    title: str,
    list_name: str,
    due: tuple[datetime, bool] | None,
    notes: str,
    found: object,
) -> Outcome:
    """A reminder just added, as its list holds it under the id Reminders gave it."""
    if not isinstance(found, dict):
        return not_confirmed(
            "Reminders",
            f"Reminders gave the new reminder an id, but the list {shown(list_name)} holds no "
            "reminder under it.",
        )
    asked_due = NONE
    if due is not None:
        moment, all_day = due
        asked_due = moment.date().isoformat() if all_day else minute(moment)
    found_due = _due_found(found, due[1] if due else None)
    found_title, found_notes = str(found.get("title") or ""), str(found.get("notes") or "")
    line = f"~ reminder {shown(found_title)}: created in list {shown(list_name)}"
    if found_due != NONE:
        line += f", due {found_due}"
    if found_notes:
        line += f", notes {characters(len(found_notes))}"
    differ = differences(
        [("the title", shown(found_title), shown(title)), ("due", found_due, asked_due)]
    )
    differ += text_difference("the notes", found_notes, notes)
    return read_back(line, differ)


def note(*, title: str, body: str, folder: str, created_folder: bool, found: object) -> Outcome:
    """A note just created, as its folder holds it under the id Notes gave it. Notes keeps a
    note's title as the first line of its text; the rest is the body."""
    where = f"folder {shown(folder)}" + (" (a new folder)" if created_folder else "")
    if not isinstance(found, dict):
        return not_confirmed(
            "Notes",
            f"Notes gave the new note an id, but the {where} holds no note under it.",
        )
    found_title = str(found.get("title") or "")
    _first, _newline, found_body = str(found.get("text") or "").partition("\n")
    found_body, asked_body = found_body.rstrip(), body.rstrip()
    line = f"~ note {shown(found_title)}: created in {where}, body {characters(len(found_body))}"
    differ = differences([("the title", shown(found_title), shown(title))])
    differ += text_difference("the body", found_body, asked_body)
    return read_back(line, differ)


def _recipients(addresses: Sequence[str]) -> str:
    if not addresses:
        return "nobody"
    more = f" (+{len(addresses) - 1} more)" if len(addresses) > 1 else ""
    return f"{shown(addresses[0])}{more}"


def _addresses(value: object) -> list[str]:
    return [str(item).lower() for item in value] if isinstance(value, list) else []


def draft(
    *,
    subject: str,
    to: Sequence[str],
    cc: Sequence[str],
    bcc: Sequence[str],
    body: str,
    found: object,
) -> Outcome:
    """A draft just saved, as Mail holds the outgoing message now."""
    if not isinstance(found, dict):
        return not_confirmed("Mail", "Mail no longer holds the draft it was given.")
    found_subject = str(found.get("subject") or "")
    found_to = _addresses(found.get("to"))
    length = int(found.get("body_length") or 0)
    line = (
        f"+ draft {shown(found_subject)}: saved and open in Mail, to {_recipients(found_to)}, "
        f"body {characters(length)}"
    )
    differ = differences(
        [
            ("the subject", shown(found_subject), shown(subject)),
            ("the body", characters(length), characters(len(body))),
        ]
    )
    for what, asked in (("to", to), ("cc", cc), ("bcc", bcc)):
        got = sorted(_addresses(found.get(what)))
        if got != sorted(address.lower() for address in asked):
            differ.append(f"{what} is {len(got)} addresses, not the {len(asked)} asked")
    return read_back(line, differ)


def sent(*, found: object, waited: float) -> Outcome:
    """A mail just sent, as Mail's Sent mailbox shows it (or not yet)."""
    if not isinstance(found, dict):
        return not_confirmed(
            "Mail",
            f"Mail took the message, but after {waited:g} s it is not in Sent; it may still be "
            "in the Outbox. Ask the person to check Mail before sending it again.",
        )
    account = found.get("account")
    where = f"in {shown(found.get('mailbox') or 'Sent')}"
    if account:
        where += f" of account {shown(account)}"
    line = (
        f"+ message {shown(found.get('subject'))}: {where}, id {found.get('id')}, to "
        f"{_recipients(_addresses(found.get('to')))}"
    )
    return read_back(line)


def clipboard(*, text: str, found: object) -> Outcome:
    """The clipboard read back after putting `text` on it; another text is counted, never
    shown."""
    if found == text:
        return read_back(f"~ clipboard: holds the text put, {characters(len(text))}")
    if not isinstance(found, str):
        return read_back("~ clipboard: holds no text", ["the clipboard is empty, not the text put"])
    # What else is on the clipboard is not shown: it may be a password another app put there,
    # and reading the clipboard is an action of its own, with its own rule.
    line = f"~ clipboard: holds other text, {characters(len(found))}"
    return read_back(line, ["the clipboard holds other text, not the text put"])


def app_in_front(*, app: str, running: object, frontmost: object) -> Outcome:
    """An app after it was asked to open and come to the front."""
    if running is not True:
        return read_back(f"~ app {shown(app)}: not running", ["it is not running"])
    if frontmost is not True:
        return read_back(f"~ app {shown(app)}: running, not in front", ["it is not in front"])
    return read_back(f"~ app {shown(app)}: running, in front")


def revealed(*, paths: Sequence[str], selected: object) -> Outcome:
    """Finder after it was asked to show an item (`paths`: its spellings, as given and real):
    is it the item Finder has selected?"""
    found = {str(item) for item in selected} if isinstance(selected, list) else set()
    wanted = [path.rstrip("/") or "/" for path in paths]
    if any(path in found for path in wanted):
        return read_back(f"~ Finder: shows {shown(wanted[0], 120)} selected")
    return not_confirmed(
        "Finder", "Finder does not have that item selected; it may show another window."
    )


NOTIFIED = not_confirmed(
    "Notification Center",
    "macOS offers no way to read a notification back; Focus or the person's notification "
    "settings may keep it from showing.",
)


# --- apps and windows ----------------------------------------------------------------------


def window_line(app: str, frame: Sequence[int], where: str) -> str:
    return f"~ window of {shown(app)}: at {list(frame)}{where}"


def placed(*, app: str, frame: Sequence[int], asked: Sequence[int], where: str = "") -> Outcome:
    """An app's front window as it reports its frame after being moved."""
    differ = differences([("the window", f"at {list(frame)}", f"at {list(asked)}")])
    return read_back(window_line(app, frame, where), differ)


def quit_app(*, app: str, was_running: bool, running: object) -> Outcome:
    """An app after it was asked to quit."""
    if not was_running:
        return Outcome(kind="no_effect", nothing=f"{shown(app)} was not running.")
    if running is not False:
        return read_back(
            f"~ app {shown(app)}: still running",
            ["it is still running (it may be asking the person to save changes)"],
        )
    return read_back(f"- app {shown(app)}: quit")
