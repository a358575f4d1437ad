"""The asking end of a routine run: one `routine` request to the running app, and its report.

`deskhand routine run` and `deskhand mcp`'s `run_routine` both use it (`protocol.py` has the
lines). When no Deskhand runs on the data dir it is started (`launch.py`): a run needs the
window, for the plan sheet and for anything that asks. The run has no time limit; `stop()`
closes this end for writing, which stops the run in the app while its report still comes back.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from desktop.command.client import BROKEN, NOT_UNDERSTOOD, Failure, reply_of
from desktop.command.launch import START_LIMIT, NotStarted, start_app
from desktop.command.place import ServerInfo, data_root, read_info

__all__ = ["AppRun"]

CONNECT_LIMIT = 5.0
QUIT_MID_RUN = (
    "Deskhand stopped before the routine's run ended; its chat “▶ {name}” keeps what ran, "
    "marked stopped."
)

# Told as the run goes: ("starting", "", None) when the app is being started first, ("started",
# "▶ NAME", chat id), and ("asking", what, None) each time the run waits for the person.
Told = Callable[[str, str, int | None], None]


class AppRun:
    """One run of a routine in the app, asked for by a command: `wait()` for its report."""

    def __init__(
        self,
        data_dir: Path | None,
        name: str,
        params: dict[str, str],
        *,
        update: bool = False,
        start_limit: float = START_LIMIT,
        by: Literal["command", "mcp"] = "command",
    ) -> None:
        self.data_dir = data_dir
        self.name = name
        self.params = params
        self.update = update
        self.start_limit = start_limit
        self.by = by  # who asks, for the routine's history of runs
        self._connection: socket.socket | None = None
        self._buffer = b""
        self._stopped = False
        self._running = False  # the app said the run started

    @property
    def connected(self) -> bool:
        """The request reached the app (the run may be going)."""
        return self._connection is not None

    def start(self, told: Told) -> None:
        """Connect to the app (starting it when none runs) and send the request."""
        info = read_info(data_root(self.data_dir))
        connection = self._connect(info) if info is not None else None
        if connection is None:
            told("starting", "", None)
            try:
                info = start_app(self.data_dir, self.start_limit)
            except NotStarted as failure:
                raise Failure(str(failure), failure.code) from None
            connection = self._connect(info)
            if connection is None:
                raise Failure(BROKEN, "failed")
        assert info is not None
        self._connection = connection
        request = {
            "token": info.token,
            "kind": "routine",
            "name": self.name,
            "params": self.params,
            "update": self.update,
            "by": self.by,
        }
        try:
            connection.sendall(json.dumps(request).encode() + b"\n")
        except OSError as exc:
            raise Failure(BROKEN, "failed") from exc
        if self._stopped:  # stopped while it was connecting
            self.stop()

    @staticmethod
    def _connect(info: ServerInfo) -> socket.socket | None:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.settimeout(CONNECT_LIMIT)
            connection.connect(info.socket)
        except OSError:
            connection.close()
            return None
        connection.settimeout(None)  # a run takes as long as it takes
        return connection

    def wait(self, told: Told) -> dict[str, Any]:
        """The run's report (`deskhand.routine.run/1`) once it ends. Raises `Failure` when it
        could not start (its code: `not_found`, `bad_input`, `already_running`, `refused`) or
        the connection broke. Interrupted (Ctrl+C), it can be called again after `stop()`."""
        connection = self._connection
        if connection is None:
            raise Failure(BROKEN, "failed")
        while True:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                reply = reply_of(line)
                if isinstance(reply.get("report"), dict):
                    self.close()
                    return dict(reply["report"])
                result = reply.get("result")
                if isinstance(result, dict):
                    self.close()
                    code = str(result.get("code") or "failed")
                    raise Failure(str(result.get("error") or NOT_UNDERSTOOD), code)
                event = reply.get("event")
                if isinstance(event, dict) and event.get("event") == "started":
                    self._running = True
                if isinstance(event, dict) and event.get("event") in ("started", "asking"):
                    chat_id = event.get("chat_id")
                    told(
                        str(event["event"]),
                        str(event.get("summary") or ""),
                        chat_id if isinstance(chat_id, int) else None,
                    )
            try:
                chunk = connection.recv(1 << 16)
            except OSError as exc:
                self.close()
                raise Failure(self._broken(), "failed") from exc
            if not chunk:
                self.close()
                raise Failure(self._broken(), "failed")
            self._buffer += chunk

    def _broken(self) -> str:
        """Why no report came: the app went away (quit, crashed) before or during the run."""
        return QUIT_MID_RUN.format(name=self.name) if self._running else BROKEN

    def stop(self) -> None:
        """Ask the app to stop the run: this end stops writing, and still reads the report."""
        self._stopped = True
        if self._connection is not None:
            try:
                self._connection.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()
