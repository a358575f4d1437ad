"""The busy-machine helper loads the cores it was asked to, and never outlives its bound."""

from __future__ import annotations

import multiprocessing
import time

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
