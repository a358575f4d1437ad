"""The audit log as CSV, for people who keep records or report a problem."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from desktop.store import AuditEntry, format_time

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
]


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
