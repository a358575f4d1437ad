"""How `deskhand ui` talks to the running app: where the socket is, and the messages, one JSON a line.

The app (`ui_socket.py`) listens on a Unix socket in a folder of the data dir only its user can
open (`DATA/ui/ui.sock`, mode 0600; a private temporary folder when that path is too long for a
socket) and writes, for this run only, `DATA/ui/ui.json` (mode 0600): the socket's path, a random
token and its process id. A command (`ui_cli.py`) reads that file, connects, and sends one
request line; the app checks the peer's user id and the token, runs the action through its
pipeline and gate, and answers with event lines and then one result line:

    → {"token": "…", "tool": "screen", "input": {"action": "see", "app": "Mail"}}
    ← {"event": "asking", "summary": "Click B2 'Send' (button, Mail)"}   the window asks
    ← {"result": {"ok": true, "text": "…", "images": [{"media_type": "image/png",
                  "width": 1429, "height": 804, "data": "<base64>"}]}}

`error` in a result is a one-line message for the person.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

__all__ = [
    "Event",
    "Reply",
    "Request",
    "Result",
    "ServerInfo",
    "info_path",
    "new_token",
    "socket_path",
]

FOLDER = "ui"
INFO = "ui.json"
SOCKET = "ui.sock"
MAX_LINE = 1 << 16  # a request line; replies may carry images and are read without a limit
SOCKET_PATH_LIMIT = 100  # bytes: AF_UNIX paths are at most 104–108 bytes long


class Request(BaseModel):
    token: str
    tool: Literal["screen"] = "screen"
    input: dict[str, Any]


class Image(BaseModel):
    media_type: str
    width: int
    height: int
    data: str  # base64


class Result(BaseModel):
    ok: bool
    text: str = ""
    images: list[Image] = Field(default_factory=list)
    error: str = ""  # for the person: why nothing ran (not running, refused, timed out)


class Event(BaseModel):
    event: Literal["asking", "answered"]
    summary: str = ""


class Reply(BaseModel):
    """One line from the app: an event, or the result (the last line)."""

    event: Event | None = None
    result: Result | None = None


class ServerInfo(BaseModel):
    socket: str
    token: str
    pid: int


def folder(root: Path) -> Path:
    return root / FOLDER


def info_path(root: Path) -> Path:
    return folder(root) / INFO


def socket_path(root: Path) -> Path:
    """Where the socket goes: in the data dir, or in a private temporary folder when that path
    would be too long for a Unix socket."""
    path = folder(root) / SOCKET
    if len(os.fsencode(path)) <= SOCKET_PATH_LIMIT:
        return path
    return Path(tempfile.mkdtemp(prefix="deskhand-ui-")) / SOCKET


def new_token() -> str:
    return secrets.token_hex(16)


def write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read (created with mode 0600, never wider)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)
    os.chmod(path, 0o600)  # an older file keeps its mode through O_CREAT
