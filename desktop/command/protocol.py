"""How `deskhand ui` talks to the running app: where the socket is, and the messages, one JSON a line.

The app (`listener.py`) listens on a Unix socket in a folder of the data dir only its user can
open (`DATA/ui/ui.sock`, mode 0600; a private temporary folder when that path is too long for a
socket) and writes, for this run only, `DATA/ui/ui.json` (mode 0600): the socket's path, a random
token and its process id (`place.py`). A command (`client.py`) reads that file, connects, and
sends one request line; the app checks the peer's user id and the token, runs the action through
its pipeline and gate, and answers with event lines and then one result line:

    → {"token": "…", "tool": "screen", "input": {"action": "see", "app": "Mail"}}
    ← {"event": "asking", "summary": "Click B2 'Send' (button, Mail)"}   the window asks
    ← {"result": {"ok": true, "text": "…", "images": [{"media_type": "image/png",
                  "width": 1429, "height": 804, "data": "<base64>"}]}}

`error` in a result is a one-line message for the person, `code` its code for programs
(`answers.py`); `data` is the result as plain values, the `--json` answer's substance, and
`outcome` what the action really did (`{"kind": "done", "changes": [...], "note": ""}`).

`deskhand mcp` asks the window's approval sheet the same way, with a request of kind `ask`: the
call exactly as its gate described it and the name the MCP client gave itself. The window shows
its sheet ("An MCP client (Claude Desktop) asks:") and answers with one line; only the person's
own answer (`by: person`) can allow. A Never rule in the window refuses (`rule`); a window with
no sheet to show answers `mode` (then the asker falls back as if no window ran). "Always allow"
is saved by the window (the one writer of the settings file), which the asker re-reads:

    → {"token": "…", "kind": "ask", "client": "Claude Desktop",
       "call": {"tool": "browser", "action": "navigate", "summary": "Open …", "input": {…}, …}}
    ← {"event": {"event": "asking", "summary": "Open …"}}
    ← {"answer": {"allow": true, "always": false, "reason": "", "by": "person"}}

If either end goes away before the person answers, the question is dropped: the window closes
its sheet, and the asker treats the call as refused.

`deskhand routine run` and `deskhand mcp`'s `run_routine` ask the app to run a routine with a
request of kind `routine`. The app starts the run in its own chat ("▶ NAME"), says so, and
answers when the run ends with its report (`deskhand.routine.run/1`), or with a result line
when the run could not start (an unknown routine, a bad parameter, one already running). A run
has no time limit; the command closing its end (Ctrl+C) stops the run, and the report still
comes back while the command reads:

    → {"token": "…", "kind": "routine", "name": "Weekly report", "params": {"week": "12"},
       "update": false, "by": "command"}
    ← {"event": {"event": "started", "summary": "▶ Weekly report", "chat_id": 7}}
    ← {"event": {"event": "asking", "summary": "Approve the plan…"}}   waits for the person
    ← {"report": {"schema": "deskhand.routine.run/1", "ok": true, "status": "done", …}}

`deskhand routine schedule` sets a routine's schedule through the running app, whose window
shows the plan sheet the schedule needs (request kind `schedule`; `schedule: null` takes it
off). The answer is a result whose `data` is the schedule as set:

    → {"token": "…", "kind": "schedule", "name": "Docs search",
       "schedule": {"kind": "daily", "at": "08:00", …}, "missed": "run"}
    ← {"event": {"event": "asking", "summary": "Run “Docs search” daily at 08:00"}}
    ← {"result": {"ok": true, "data": {"name": "Docs search", "next_run": "…", …}}}
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field, ValidationError

from desktop.calls.permissions import Answer, ToolCall
from desktop.command.place import (
    ServerInfo,
    folder,
    info_path,
    new_token,
    read_info,
    socket_path,
    write_private,
)
from tools.data import Data
from tools.outcome import Outcome

__all__ = [
    "AskRequest",
    "Event",
    "Reply",
    "Request",
    "Result",
    "RoutineRequest",
    "ScheduleRequest",
    "ServerInfo",
    "folder",
    "info_path",
    "new_token",
    "parse_request",
    "read_info",
    "socket_path",
    "write_private",
]

MAX_LINE = 1 << 16  # a request line; replies may carry images and are read without a limit


class Request(Data):
    """Run one action (the `deskhand ui` commands)."""

    token: str
    kind: Literal["run"] = "run"
    tool: Literal["screen"] = "screen"
    input: dict[str, Any]


ASKER_LIMIT = 60  # characters of a client's name shown on the sheet


class AskRequest(Data):
    """Ask the person about a call another Deskhand process is about to make (`deskhand mcp`)."""

    token: str
    kind: Literal["ask"]
    client: str = Field("", max_length=200)  # the MCP client's own name for itself
    call: ToolCall

    def asker(self) -> str:
        """Who the sheet says asks."""
        name = " ".join(self.client.split())[:ASKER_LIMIT]
        return f"An MCP client ({name})" if name else "An MCP client"


class ScheduleRequest(Data):
    """Set (or, with `schedule` None, take off) a routine's schedule (`deskhand routine
    schedule`): the window asks the person on the plan sheet."""

    token: str
    kind: Literal["schedule"]
    name: str = Field(max_length=200)
    schedule: dict[str, Any] | None = None  # desktop/routines/schedules/times.py's Schedule
    missed: Literal["run", "skip"] = "run"


class RoutineRequest(Data):
    """Run a routine to its end (`deskhand routine run`, `deskhand mcp`'s `run_routine`)."""

    token: str
    kind: Literal["routine"]
    name: str = Field(max_length=200)
    params: dict[str, str] = Field(default_factory=dict)
    update: bool = False  # a run that healed writes its healed steps into the routine
    by: Literal["command", "mcp"] = "command"  # who asked: the routine's history says


def parse_request(line: bytes) -> Request | AskRequest | RoutineRequest | ScheduleRequest:
    """A request line of any kind; raises ValueError when it is none."""
    try:
        raw = json.loads(line)
        kind = raw.get("kind") if isinstance(raw, dict) else None
        if kind == "ask":
            return AskRequest.model_validate(raw)
        if kind == "schedule":
            return ScheduleRequest.model_validate(raw)
        if kind == "routine":
            return RoutineRequest.model_validate(raw)
        return Request.model_validate(raw)
    except ValidationError as exc:
        raise ValueError("not a request") from exc


class Image(Data):
    media_type: str
    width: int
    height: int
    data: str  # base64


class Result(Data):
    ok: bool
    text: str = ""
    images: list[Image] = Field(default_factory=list)
    error: str = ""  # for the person: why nothing ran (not running, refused, timed out)
    code: str = ""  # the error's code for programs (`answers.py`)
    data: dict[str, Any] | None = None  # the result as plain values (`tools/screen/see/report.py`)
    # What the action really did, read back after it (tools/outcome.py); None for a read.
    outcome: Outcome | None = None


class Event(Data):
    event: Literal["asking", "answered", "started"]
    summary: str = ""
    chat_id: int | None = None  # `started`: the chat a routine runs in


class Reply(Data):
    """One line from the app: an event, or the result, answer or report (the last line)."""

    event: Event | None = None
    result: Result | None = None
    answer: Answer | None = None
    report: dict[str, Any] | None = None  # a routine run's `RunReport.document()`
