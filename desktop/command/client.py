"""The command's end of `deskhand ui`: one action to the running app, or done here when none runs.

The request and the replies are the lines `protocol.py` describes, read here as plain JSON:
asking the running app must start fast (`deskhand ui windows` within 150 ms), so this side
loads neither pydantic nor the screen's modules. Only when no app answers does the command act
by itself (`alone.py`), and load what that needs.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

from desktop.command.place import ServerInfo, data_root, read_info

__all__ = ["ActionResult", "Failure", "alone", "send", "send_request"]

ANSWER_LIMIT = 600.0  # seconds the command waits for the person's answer in the window
NOT_RUNNING = "Deskhand is not running."
TIMED_OUT = "Deskhand did not answer in time (--timeout); the action was stopped."
TIMED_OUT_ALONE = "The action did not finish in time (--timeout); it was stopped."
BROKEN = "The connection to Deskhand broke before it answered."
NOT_UNDERSTOOD = "Deskhand's answer was not understood; is this the same version?"


class Failure(Exception):
    """Nothing came back: no app, no answer in time, a broken connection (`code`: its code)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


class ActionResult(NamedTuple):
    """A result line (`protocol.Result`) as this side reads it."""

    ok: bool
    text: str = ""
    images: tuple[dict[str, Any], ...] = ()  # media_type, width, height, data (base64)
    error: str = ""
    code: str = ""
    data: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None  # what it really did: kind, changes, note

    @classmethod
    def of(cls, raw: Any) -> ActionResult:
        if not isinstance(raw, dict) or not isinstance(raw.get("ok"), bool):
            raise Failure(NOT_UNDERSTOOD, "failed")
        data = raw.get("data")
        outcome = raw.get("outcome")
        return cls(
            ok=raw["ok"],
            text=str(raw.get("text") or ""),
            images=tuple(image for image in raw.get("images") or [] if isinstance(image, dict)),
            error=str(raw.get("error") or ""),
            code=str(raw.get("code") or ""),
            data=data if isinstance(data, dict) else None,
            outcome=outcome if isinstance(outcome, dict) else None,
        )


def _server(data_dir: Path | None) -> ServerInfo:
    info = read_info(data_root(data_dir))
    if info is None:
        raise Failure(NOT_RUNNING, "not_running")
    return info


def send(data_dir: Path | None, action: dict[str, Any], timeout: float) -> ActionResult:
    """One action to the running app; its result. Raises `Failure`."""
    return send_request(data_dir, {"kind": "run", "tool": "screen", "input": action}, timeout)


def send_request(data_dir: Path | None, fields: dict[str, Any], timeout: float) -> ActionResult:
    """One request of any kind (`protocol.py`) to the running app; its result. Raises
    `Failure`."""
    info = _server(data_dir)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(timeout)
        try:
            connection.connect(info.socket)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise Failure(NOT_RUNNING, "not_running") from exc
        request = {"token": info.token, **fields}
        connection.sendall(json.dumps(request).encode() + b"\n")
        return _read_result(connection, timeout)
    except TimeoutError as exc:
        raise Failure(TIMED_OUT, "timeout") from exc
    except OSError as exc:
        raise Failure(BROKEN, "failed") from exc
    finally:
        connection.close()


def alone(data_dir: Path | None, action: dict[str, Any], timeout: float) -> ActionResult:
    """No app runs: this process acts, with the person's rules. Raises `Failure`."""
    import asyncio

    from desktop.command.alone import run_alone  # only now: the screen's modules

    try:
        result = asyncio.run(asyncio.wait_for(run_alone(data_dir, action), timeout))
    except TimeoutError as exc:
        raise Failure(TIMED_OUT_ALONE, "timeout") from exc
    return ActionResult.of(result.model_dump())


def reply_of(line: bytes) -> dict[str, Any]:
    """One line the app answered, as the JSON object it must be."""
    try:
        reply = json.loads(line)
    except ValueError as exc:
        raise Failure(NOT_UNDERSTOOD, "failed") from exc
    if not isinstance(reply, dict):
        raise Failure(NOT_UNDERSTOOD, "failed")
    return reply


def _read_result(connection: socket.socket, timeout: float) -> ActionResult:
    buffer = b""
    deadline = time.monotonic() + timeout
    while True:
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            reply = reply_of(line)
            if reply.get("result") is not None:
                return ActionResult.of(reply["result"])
            event = reply.get("event")
            if isinstance(event, dict) and event.get("event") == "asking":
                print(
                    f"Deskhand asks you in its window: {event.get('summary', '')}",
                    file=sys.stderr,
                    flush=True,
                )
                deadline = time.monotonic() + ANSWER_LIMIT
            elif event is not None:
                deadline = time.monotonic() + timeout
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        connection.settimeout(remaining)
        chunk = connection.recv(1 << 16)
        if not chunk:
            raise Failure(BROKEN, "failed")
        buffer += chunk
