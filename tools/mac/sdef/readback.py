"""What a generated command (`app_command`) really left behind, from call.js's read-back.

call.js reads back what a changing call touched: the property after `set`, whether the object
is still there after `delete`, and the object a command gave back (the one `make` made) with
its properties, by the id it answers to. Here that is compared with what was asked and said in
`Effect:` lines (tools/mac/readback.py), e.g.
`+ event "Dentist": made in calendar 'Home', 2026-12-03 09:00–10:00`.
Reads (get, exists, count, and commands the dictionary's risk calls reads) get no outcome.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from tools.base import Risk
from tools.mac.readback import minute, not_confirmed, read_back, shown
from tools.mac.sdef.calls import PreparedCall
from tools.outcome import Outcome

TITLE_KEYS = ("name", "summary", "subject", "title")  # what an object is called, by app
SPAN = ("startDate", "endDate")  # shown together: 2026-12-03 09:00–10:00


def _moment(value: Any) -> datetime | None:
    """A date as call.js renders it ({"date": ISO}) or as it was asked ({"$date": ISO})."""
    if isinstance(value, dict):
        text = value.get("date", value.get("$date"))
        if isinstance(text, str):
            try:
                return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone()
            except ValueError:
                return None
    return None


def show(value: Any) -> str:
    """A value read back (or asked) in a few words for an effect line."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return shown(value)
    if (moment := _moment(value)) is not None:
        return minute(moment)
    if isinstance(value, dict) and len(value) == 1:
        ((key, inner),) = value.items()
        if key in ("file", "$file", "reference") and isinstance(inner, str):
            return shown(inner, 120)
    return shown(json.dumps(value, ensure_ascii=False), 60)


def same(asked: Any, found: Any) -> bool | None:
    """Whether a value read back is the one asked; None when the two cannot be compared
    (an object reference, a record)."""
    if isinstance(asked, bool) or isinstance(found, bool):
        return asked is found
    if isinstance(asked, int | float):
        return isinstance(found, int | float) and math.isclose(asked, found, rel_tol=1e-9)
    if isinstance(asked, str):
        return asked == found
    if isinstance(asked, dict) and "$date" in asked:
        wanted, got = _moment(asked), _moment(found)
        return wanted is not None and got is not None and abs((wanted - got).total_seconds()) < 1
    if isinstance(asked, dict) and "$file" in asked:
        got = found.get("file") if isinstance(found, dict) else None
        return isinstance(got, str) and got.rstrip("/") == str(asked["$file"]).rstrip("/")
    return None


def _differences(asked: dict[str, Any], found: dict[str, Any]) -> list[str]:
    return [
        f"{key} is {show(found.get(key))}, not {show(value)}"
        for key, value in asked.items()
        if same(value, found.get(key)) is False
    ]


def _facts(asked: dict[str, Any], found: dict[str, Any], title_key: str | None) -> list[str]:
    """The asked properties as read back, a start and end date together as one span."""
    facts = []
    start, end = _moment(found.get(SPAN[0])), _moment(found.get(SPAN[1]))
    spanned = all(key in asked for key in SPAN) and start is not None and end is not None
    if spanned and start is not None and end is not None:
        until = end.strftime("%H:%M") if end.date() == start.date() else minute(end)
        facts.append(f"{minute(start)}–{until}")
    for key in asked:
        if key == title_key or (spanned and key in SPAN):
            continue
        facts.append(f"{key} {show(found.get(key))}")
    return facts


def _made(prepared: PreparedCall, back: dict[str, Any]) -> Outcome:
    raw = back.get("found")
    found: dict[str, Any] = raw if isinstance(raw, dict) else {}
    parameters = prepared.payload.get("parameters", {})
    record = parameters.get("withProperties")
    inner = record.get("$record", record) if isinstance(record, dict) else None
    asked: dict[str, Any] = inner if isinstance(inner, dict) else {}
    kind = parameters.get("new") or found.get("class") or "object"
    title_key = next((key for key in TITLE_KEYS if key in found), None)
    title = f" {shown(found[title_key])}" if title_key else ""
    verb = "made" if back.get("kind") == "made" else f"given back by {prepared.command}"
    where = f" in {prepared.where}" if prepared.where and back.get("kind") == "made" else ""
    line = ", ".join([f"+ {kind}{title}: {verb}{where}", *_facts(asked, found, title_key)])
    return read_back(line, _differences(asked, found))


def command_outcome(prepared: PreparedCall, back: object) -> Outcome | None:
    """The outcome of one generated call, from call.js's read-back; None for a read."""
    if not isinstance(back, dict):
        return None
    app, words = prepared.app, prepared.object_words or "the object"
    match back.get("kind"):
        case "set":
            found, asked = back.get("found"), prepared.payload.get("value")
            differ = (
                []
                if same(asked, found) is not False
                else [f"it is {show(found)}, not {show(asked)}"]
            )
            return read_back(f"~ {words}: {show(found)}", differ)
        case "deleted":
            if back.get("exists") is False:
                return read_back(f"- {words}: deleted")
            return read_back(f"~ {words}: still there", ["it still exists"])
        case "made" | "returned":
            return _made(prepared, back)
        case "unreadable":
            return not_confirmed(
                app,
                f"{app} did not let its answer be read back; the change may not have been made.",
            )
    if prepared.risk is Risk.READ:
        return None
    return not_confirmed(
        app,
        f"{app} gave nothing back to read, so what {prepared.command} did rests on its own word.",
    )
