"""The audit log as CSV, for people who keep records or report a problem, and in words for
Settings → Audit."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from desktop.calls.card_text import change_words
from desktop.calls.permissions import NO_APPROVER
from desktop.system.store import AuditEntry, format_time

DECIDERS = {
    "person": "by you",
    "rule": "by rule",
    "mode": "by mode",
    "stop": "by Stop",
    "plan": "by the plan",
}

COLUMNS = [
    "time",
    "tool",
    "action",
    "summary",
    "decision",
    "decided by",
    "outcome",
    "duration ms",
    "input digest",
    "reason",
    "effect",
    "changes",
]
SHORT = 60  # characters of the effect Settings → Audit shows in its column (the tooltip: all)
# What a call really did (tools/outcome.py's kinds), as Settings → Audit says it.
EFFECT_WORDS = {
    "done": "Done",
    "no_effect": "No change",
    "differs": "Not as asked",
    "refused": "Not done",
    "failed": "Failed",
    "unconfirmed": "Not confirmed",
}


def decision_text(entry: AuditEntry) -> str:
    """The decision and who made it: "Allowed by you", "Denied by rule"."""
    return f"{entry.decision.capitalize()} {DECIDERS.get(entry.decided_by, entry.decided_by)}"


def reason_text(entry: AuditEntry) -> str:
    """Why a call was denied, in a person's words; for one an approved plan let through, which
    plan ("allowed by the plan approved at 10:42"); else ""."""
    if entry.decided_by == "plan":
        return entry.reason
    if entry.decision != "denied":
        return ""
    if entry.decided_by == "person":
        return f"“{entry.reason}”" if entry.reason else "You said no"
    if entry.decided_by == "rule":
        return "Your “Never” rule"
    if entry.decided_by == "stop":
        return "You stopped the reply"
    if entry.reason == NO_APPROVER:
        return "No one was there to approve it"
    return entry.reason


def effect_text(entry: AuditEntry) -> str:
    """What the call really did, in words: "Done: alert "Saved" appeared", "No change",
    "Not confirmed: …"; the first of its lines, kept short (every line is in the CSV); "" for
    a read."""
    if not entry.effect:
        return ""
    words = EFFECT_WORDS.get(entry.effect, entry.effect)
    first = entry.changes.split("\n", 1)[0]
    if not first:
        return words
    if first.startswith(f"{words}:"):  # a note that names its kind already ("Not confirmed: …")
        return _short(first)
    more = entry.changes.count("\n")
    return _short(f"{words}: {change_words(first)}") + (f" (+{more})" if more else "")


def _short(text: str) -> str:
    return text if len(text) <= SHORT else text[: SHORT - 1] + "…"


def audit_rows(entries: Iterable[AuditEntry]) -> list[list[str]]:
    return [
        [
            format_time(e.at),
            e.tool,
            e.action,
            e.summary,
            e.decision,
            e.decided_by,
            e.outcome or "",
            "" if e.duration_ms is None else str(e.duration_ms),
            e.input_digest,
            e.reason,
            e.effect,
            e.changes,
        ]
        for e in entries
    ]


def write_csv(entries: Iterable[AuditEntry], path: Path) -> int:
    """Writes the entries with a header row; returns how many were written."""
    rows = audit_rows(entries)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    return len(rows)
