"""Python side of the JXA stand-in (a simulation): world files holding scripted app object models.

A test writes a world (apps and their objects, scripted Apple Event errors, the clipboard),
points `DESKHAND_JXA_WORLD` at it and `DESKHAND_OSASCRIPT` at the stand-in `osascript`, runs
actions, and reads the world back to see what the scripts changed.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

STANDIN_DIR = Path(__file__).parent
OSASCRIPT = STANDIN_DIR / "osascript"
WORLD_ENV = "DESKHAND_JXA_WORLD"


def encode(value: Any) -> Any:
    """World JSON for Python values: datetimes become {"$date": ISO}."""
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.astimezone()
        return {"$date": moment.astimezone(UTC).isoformat().replace("+00:00", "Z")}
    if isinstance(value, date):
        raise TypeError("use a datetime (local midnight) for dates in a world")
    if isinstance(value, dict):
        return {key: encode(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [encode(item) for item in value]
    return value


def decode(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$date"}:
            return datetime.fromisoformat(value["$date"].replace("Z", "+00:00")).astimezone()
        return {key: decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


def ref(*path: str | int) -> dict[str, list[str | int]]:
    """A pointer to another object of the same app, e.g. Reminders' default list."""
    return {"$ref": list(path)}


class World:
    """One world file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, data: dict[str, Any]) -> None:
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(encode(data)), encoding="utf-8")
        os.replace(temporary, self.path)

    def read(self) -> dict[str, Any]:
        return decode(json.loads(self.path.read_text(encoding="utf-8")))

    def app(self, name: str) -> dict[str, Any]:
        return self.read().get("apps", {}).get(name, {})


def process_gone(pid: int) -> bool:
    """True once `pid` has exited (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def at(day: date, hour: int, minute: int = 0) -> datetime:
    """Local time on `day`."""
    return datetime.combine(day, datetime.min.time()).replace(hour=hour, minute=minute).astimezone()


def sample_world(day: date, *, clipboard: str | None = "Text on the clipboard") -> dict[str, Any]:
    """A small Mac around `day`: calendars with events across midnight and all-day events,
    reminder lists, Notes accounts and folders, two mail accounts with unread mail."""
    before, after = day - timedelta(days=1), day + timedelta(days=1)
    return {
        "clipboard": clipboard,
        "apps": {
            "Calendar": {
                "calendars": [
                    {
                        "name": "Work",
                        "id": "cal-work",
                        "events": [
                            _event("e1", "Standup", at(day, 9), at(day, 9, 15), location="Room 4"),
                            _event("e2", "Late deploy", at(before, 22), at(day, 2)),
                            _event("e3", "Night shift", at(day, 23), at(after, 1)),
                            _event("e4", "Yesterday's review", at(before, 10), at(before, 11)),
                            _event("e5", "Tomorrow's planning", at(after, 9), at(after, 10)),
                        ],
                    },
                    {
                        "name": "Home",
                        "id": "cal-home",
                        "events": [
                            _event("e6", "Holiday", at(day, 0), at(after, 0), all_day=True),
                            _event("e7", "Yesterday off", at(before, 0), at(day, 0), all_day=True),
                            _event(
                                "e8", "Conference", at(before, 0), at(after + timedelta(days=1), 0),
                                all_day=True,
                            ),
                        ],
                    },
                ]
            },
            "Reminders": {
                "lists": [
                    {"name": "Inbox", "id": "list-inbox", "reminders": []},
                    {"name": "Groceries", "id": "list-groceries", "reminders": []},
                ],
                "defaultList": ref("lists", 0),
            },
            "Notes": {
                "accounts": [
                    {
                        "name": "iCloud",
                        "id": "acc-icloud",
                        "folders": [
                            {"name": "Notes", "id": "folder-notes", "notes": []},
                            {"name": "Work", "id": "folder-work", "notes": []},
                        ],
                        "defaultFolder": ref("accounts", 0, "folders", 0),
                    }
                ],
                "defaultAccount": ref("accounts", 0),
                "folders": {"$all": ["accounts", "folders"]},
            },
            "Mail": {
                "accounts": [
                    {
                        "name": "iCloud",
                        "id": "mail-icloud",
                        "mailboxes": [
                            {
                                "name": "INBOX",
                                "id": "box-1",
                                "messages": [
                                    _mail("m1", "ana@example.com", "Quarterly numbers", at(day, 8), False, "See attached.\n\nAna"),
                                    _mail("m2", "bo@example.com", "Lunch?", at(day, 11), True, "Read already"),
                                    _mail("m3", "cy@example.com", "Invoice", at(before, 18), False, "Please pay"),
                                ],
                            },
                            {
                                "name": "Archive",
                                "id": "box-2",
                                "messages": [
                                    _mail("m4", "old@example.com", "Old news", at(before, 7), False, "Archived"),
                                ],
                            },
                        ],
                    },
                    {
                        "name": "Work",
                        "id": "mail-work",
                        "mailboxes": [
                            {
                                "name": "Inbox",
                                "id": "box-3",
                                "messages": [
                                    _mail("m5", "boss@example.com", "Deadline", at(day, 9, 30), False, "word " * 400),
                                ],
                            }
                        ],
                    },
                ],
                "outgoingMessages": [],
                "sent": [],
                # Mail's Sent mailbox; the stand-in's `send` files messages under "sent".
                "sentMailbox": {"name": "Sent", "id": "box-sent", "messages": ref("sent")},
            },
        },
        "installed": ["Safari"],
    }  # fmt: skip


def _event(
    event_id: str,
    title: str,
    start: datetime,
    end: datetime,
    *,
    all_day: bool = False,
    location: str | None = None,
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "id": event_id,
        "summary": title,
        "startDate": start,
        "endDate": end,
        "alldayEvent": all_day,
    }
    if location is not None:
        event["location"] = location
    return event


def _mail(
    message_id: str, sender: str, subject: str, received: datetime, read: bool, content: str
) -> dict[str, Any]:
    return {
        "id": message_id,
        "sender": sender,
        "subject": subject,
        "dateReceived": received,
        "readStatus": read,
        "content": content,
    }
