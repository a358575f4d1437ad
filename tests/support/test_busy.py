"""The busy-machine helper loads the cores it was asked to, and never outlives its bound."""

from __future__ import annotations

import contextlib
import multiprocessing
import subprocess
import sys
import time
from pathlib import Path

from tests.support.busy import busy_cores


def _spinning() -> list[multiprocessing.process.BaseProcess]:
    return [child for child in multiprocessing.active_children() if child.name.startswith("busy-")]


def test_the_load_runs_in_the_block_and_stops_by_itself_at_its_bound() -> None:
    with busy_cores(2, limit=1.0) as count:
        assert count == 2 and len(_spinning()) == 2
        started = time.monotonic()
        while _spinning() and time.monotonic() - started < 10:
            time.sleep(0.1)
        assert _spinning() == []  # gone by itself, the block still open
    assert _spinning() == []


def test_leaving_the_block_stops_the_load_at_once() -> None:
    started = time.monotonic()
    with busy_cores(1, limit=600):
        assert len(_spinning()) == 1
    assert _spinning() == [] and time.monotonic() - started < 10


def test_a_killed_caller_leaves_no_load_behind() -> None:
    caller = subprocess.Popen(
        [sys.executable, "-m", "tests.support.busy", "--seconds", "600", "--cores", "1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert caller.stdout is not None and "busy" in caller.stdout.readline()
        spinners = _spinners_of(caller.pid)
        assert len(spinners) == 1
    finally:
        caller.kill()
        caller.wait()
    started = time.monotonic()
    while any(_alive(pid) for pid in spinners) and time.monotonic() - started < 10:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in spinners)


def _spinners_of(parent: int) -> list[int]:
    """The spinning children of `parent` (not multiprocessing's resource tracker)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError):
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines())
            command = (status.parent / "cmdline").read_bytes()
            if int(fields.get("PPid", "0").strip()) == parent and b"spawn_main" in command:
                found.append(int(status.parent.name))
    return found


def _alive(pid: int) -> bool:
    with contextlib.suppress(OSError):
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1]
        return state not in ("Z", "X")
    return False
