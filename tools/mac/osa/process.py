"""Child-process plumbing shared by one-shot runs and workers: spawn, kill the group, read capped."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Sequence
from pathlib import Path

STDERR_KEEP = 64_000  # bytes of stderr kept (the end, where osascript writes the error)


class OutputTooLarge(Exception):
    """stdout grew past the cap; the caller kills the process."""


async def spawn(
    argv: Sequence[str | Path], *, stdin: int, limit: int
) -> asyncio.subprocess.Process:
    """Start argv directly (no shell) as the leader of a new process group (and session)."""
    return await asyncio.create_subprocess_exec(
        *argv,
        stdin=stdin,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        limit=limit,
    )


def kill_group(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL the process and everything it started (its process group).

    Safe after the leader was reaped too: while any member lives the group id stays in use and
    the kernel does not hand that number out again.
    """
    if proc.returncode is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # children it left behind
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            proc.kill()


async def reap(proc: asyncio.subprocess.Process) -> None:
    """Wait for a killed process, even while the awaiting task is being cancelled."""
    with contextlib.suppress(asyncio.CancelledError, ProcessLookupError):
        await asyncio.shield(proc.wait())


async def read_capped(stream: asyncio.StreamReader, cap: int) -> bytes:
    """Everything until EOF, or OutputTooLarge as soon as it passes `cap` bytes."""
    chunks: list[bytes] = []
    size = 0
    while chunk := await stream.read(65_536):
        size += len(chunk)
        if size > cap:
            raise OutputTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


async def read_tail(stream: asyncio.StreamReader, keep: int = STDERR_KEEP) -> bytes:
    """Drain the stream until EOF, keeping its last `keep` bytes."""
    tail = bytearray()
    while chunk := await stream.read(65_536):
        tail += chunk
        if len(tail) > keep:
            del tail[: len(tail) - keep]
    return bytes(tail)
