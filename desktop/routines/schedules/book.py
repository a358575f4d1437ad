"""The schedules folder: one signed file per scheduled routine, with the person's approval.

`schedules/NAME.json` (`deskhand.schedule/1`) holds the routine's schedule, what a
missed run does (run once at the next start, or skip), until when its times are spent, and
the one approval the person gave on the plan sheet ("Run NAME on schedule, within these
sites and apps"). The file is signed under Deskhand's key as routine files are: a file
Deskhand did not write is not honoured (its routine is not scheduled). The approval names the
routine's content (its steps and plan) and the schedule by digest, so it lasts until either
changes; a run under a stale approval still runs, but its plan sheet waits for the person.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from desktop.routines.model import Routine, RoutinePlan
from desktop.routines.schedules.times import Schedule
from desktop.system.settings.signed import Seal
from tools.data import Data

SCHEMA = "deskhand.schedule/1"
SIGNATURE = "signature"
Missed = Literal["run", "skip"]


def digest(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class Approval(Data):
    """The person's one approval of a schedule, and what it was given for."""

    approved_at: str  # ISO, with offset
    routine: str  # digest of the routine's file content (steps, plan, parameters)
    schedule: str  # digest of the schedule's spec
    plan: RoutinePlan  # the sites and apps the sheet showed

    def covers(self, routine: Routine, schedule: Schedule) -> bool:
        return self.routine == digest(routine.document()) and self.schedule == digest(
            schedule.spec()
        )

    def words(self) -> str:
        """Who approved a run's plan, as the audit keeps it."""
        when = datetime.fromisoformat(self.approved_at)
        return f"person's approval of the schedule on {when:%Y-%m-%d %H:%M}"


class Scheduled(Data):
    """One routine's schedule file."""

    schema_: Literal["deskhand.schedule/1"] = Field(default="deskhand.schedule/1", alias="schema")
    name: str
    schedule: Schedule
    missed: Missed = "run"
    approval: Approval | None = None
    done_until: str = ""  # ISO: its times up to here are spent (run, skipped or missed)

    def document(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class ScheduleBook:
    """Read, save (signed) and remove the schedule files."""

    def __init__(self, folder: Path, seal: Seal) -> None:
        self.folder = folder
        self.seal = seal

    def path(self, name: str) -> Path:
        return self.folder / f"{name}.json"

    def load(self, name: str) -> Scheduled | None:
        """The routine's schedule; None when it has none, or one Deskhand did not write."""
        try:
            raw = json.loads(self.path(name).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(raw, dict):
            return None
        signature = raw.pop(SIGNATURE, None)
        if not self.seal.good(raw, signature):
            return None
        try:
            return Scheduled.model_validate(raw)
        except ValidationError:
            return None

    def all(self) -> list[Scheduled]:
        if not self.folder.is_dir():
            return []
        found = (self.load(path.stem) for path in sorted(self.folder.glob("*.json")))
        return [entry for entry in found if entry is not None]

    def save(self, entry: Scheduled) -> Scheduled:
        document = entry.document()
        data = {**document, SIGNATURE: self.seal.code(document)}
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(entry.name)
        temporary = path.with_name(f".{path.name}.new")
        temporary.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")
        os.replace(temporary, path)
        return entry

    def remove(self, name: str) -> bool:
        try:
            self.path(name).unlink()
        except FileNotFoundError:
            return False
        return True
