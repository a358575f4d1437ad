"""Where `deskhand ui` finds the running app: its data dir, the socket and the info file.

Kept apart from the messages (`protocol.py`, pydantic models) and free of heavy imports, so a
command that only asks the running app starts quickly: it reads `DATA/ui/ui.json` (the socket's
path, this run's token, the app's process id), connects, and sends one line.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "ServerInfo",
    "data_root",
    "folder",
    "info_path",
    "new_token",
    "read_info",
    "socket_path",
    "write_private",
]

APP_NAME = "Deskhand"  # as in `desktop/system/paths.py`
FOLDER = "ui"
INFO = "ui.json"
SOCKET = "ui.sock"
SOCKET_PATH_LIMIT = 100  # bytes: AF_UNIX paths are at most 104–108 bytes long


def data_root(data_dir: Path | None) -> Path:
    """The data dir's root, as `DataPaths.for_data_dir(data_dir).root` has it (without loading
    pydantic for one path)."""
    if data_dir is None:
        import platformdirs

        return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    return Path(data_dir).expanduser().resolve()


class ServerInfo(NamedTuple):
    socket: str
    token: str
    pid: int

    def to_json(self) -> str:
        return json.dumps(self._asdict())


def read_info(root: Path) -> ServerInfo | None:
    """What the running app wrote about its socket, or None when no app runs on this data dir.
    Blocks briefly (a small file and a signal 0)."""
    try:
        raw = json.loads(info_path(root).read_text())
        info = ServerInfo(socket=str(raw["socket"]), token=str(raw["token"]), pid=int(raw["pid"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None
    try:
        os.kill(info.pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, someone else's: the socket's owner check will say no
    return info


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
    import secrets  # the app's side only

    return secrets.token_hex(16)


def write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read (created with mode 0600, never wider)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)
    os.chmod(path, 0o600)  # an older file keeps its mode through O_CREAT
