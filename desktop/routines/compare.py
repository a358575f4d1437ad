"""Whether a replayed step did what it did when it was recorded.

The recorded `Effect:` lines came from a page or window with other data in it (a date, a count,
the parameter's old value), so the comparison is of what kind of thing happened, not of every
character: the outcome's kind must be the same, a navigation must land on the same site and
path, and each recorded change's kind (`+`, `-`, `~`) and role must be seen again.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from desktop.routines.model import Step
from tools.outcome import Outcome

NAVIGATED = "→ navigated to "
_ROLE = re.compile(r"^([+\-~])\s*([\w-]+)")


def differs(step: Step, now: Outcome | None) -> str:
    """Why the step's effect now is not the recorded one, or "" when it matches (a recorded
    read is never compared: it changed nothing)."""
    if step.reads or step.outcome is None:
        return ""
    if now is None:
        return "it reported nothing it did, where it did something before"
    if now.kind != step.outcome:
        return f"it {_kind_words(now.kind)}, where it {_kind_words(step.outcome)} before"
    recorded_places = {_place(line) for line in step.effect if line.startswith(NAVIGATED)}
    now_places = {_place(line) for line in now.changes if line.startswith(NAVIGATED)}
    if recorded_places and not recorded_places & now_places:
        landed = ", ".join(sorted(now_places)) or "nowhere new"
        return f"it went to {landed}, not {', '.join(sorted(recorded_places))}"
    recorded_kinds = {_change_kind(line) for line in step.effect} - {None}
    now_kinds = {_change_kind(line) for line in now.changes} - {None}
    missing = recorded_kinds - now_kinds
    if missing:
        sign, role = sorted(missing, key=str)[0] or ("", "")
        verb = {"+": "appear", "-": "go", "~": "change"}.get(sign, "change")
        return f"no {role} was seen to {verb}, as one did before"
    return ""


def _kind_words(kind: str) -> str:
    return {
        "done": "had its effect",
        "no_effect": "changed nothing",
        "differs": "did something other than asked",
        "refused": "was refused",
        "failed": "failed",
        "unconfirmed": "could not be confirmed",
    }.get(kind, kind)


def _place(line: str) -> str:
    address = line[len(NAVIGATED) :].strip().split()[0] if line[len(NAVIGATED) :].strip() else ""
    parts = urlsplit(address)
    return f"{parts.hostname or ''}{parts.path.rstrip('/') or '/'}"


def _change_kind(line: str) -> tuple[str, str] | None:
    match = _ROLE.match(line)
    return (match.group(1), match.group(2)) if match else None
