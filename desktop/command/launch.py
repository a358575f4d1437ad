"""Start Deskhand for a command that needs the running app (`deskhand routine run`).

The app is started as the person would start it (`deskhand`, with the same `--data-dir`),
detached from the command: it has a session of its own, so Ctrl+C in the terminal stops the
command's wait, never the app, and it keeps running after the command ends. The command then
waits for the app's command-line socket (`place.py`), saying how long it waited when it gives up,
and why when the app stopped before serving.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

from desktop.command.place import ServerInfo, data_root, read_info

__all__ = ["START_LIMIT", "NotStarted", "app_command", "start_app"]

START_LIMIT = 60.0  # seconds the app may take to open its window and serve the command line
POLL = 0.2
DID_NOT_START = (
    "Deskhand did not start within {limit:g} s. Start it yourself (deskhand), then run the "
    "routine again."
)
STOPPED = (
    "Deskhand could not start (it stopped with status {status}; its log says why). Start it "
    "yourself (deskhand), then run the routine again."
)


class NotStarted(Exception):
    """The app did not come up: `code` is `timeout` or `unavailable`."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def app_command(data_dir: Path | None) -> list[str]:
    """How to start this Deskhand: the bundle's own executable, or this Python's `desktop`."""
    base = [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "desktop"]
    return [*base, *(["--data-dir", str(data_dir)] if data_dir is not None else [])]


def _answers(info: ServerInfo) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(2)
        probe.connect(info.socket)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def start_app(data_dir: Path | None, limit: float = START_LIMIT) -> ServerInfo:
    """Start the app on `data_dir` and return its socket once it answers. Raises `NotStarted`."""
    root = data_root(data_dir)
    process = subprocess.Popen(
        app_command(data_dir),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not the terminal's: its Ctrl+C is the command's alone
        close_fds=True,
    )
    deadline = time.monotonic() + limit
    while True:
        info = read_info(root)
        if info is not None and info.pid == process.pid and _answers(info):
            return info
        status = process.poll()
        if status is not None:
            info = read_info(root)  # another Deskhand started first: it serves instead
            if info is not None and _answers(info):
                return info
            raise NotStarted(STOPPED.format(status=status), "unavailable")
        if time.monotonic() > deadline:
            raise NotStarted(DID_NOT_START.format(limit=limit), "timeout")
        time.sleep(POLL)
