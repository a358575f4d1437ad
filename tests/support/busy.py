"""A busy machine on demand: one spinning process per core, bounded, that stops by itself.

Browser actions must not fail because the machine is slow; this is how a test or a bench run
makes it slow. `busy_cores()` starts one process per core (or `count`) that spins in pure
Python until told to stop or until `limit` seconds have passed, whichever comes first: a run
that hangs leaves no spinning process behind for long, and one that is killed none at all
(each spinner stops when the process that started it is gone).

    with busy_cores(limit=600):
        ...  # both cores loaded

From the command line (the load alone, e.g. beside a test run in another terminal):

    python -m tests.support.busy --seconds 120
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.synchronize import Event

__all__ = ["busy_cores"]

MAX_LIMIT = 3600.0  # no load outlives an hour, whatever the caller asked


def _spin(stop: Event, until: float, parent: int) -> None:
    """Burn one core until `stop` is set, the clock passes `until`, or the process that started
    it is gone (killed before it could say stop)."""
    spins = 0
    while time.monotonic() < until:
        spins += 1
        # Looking at the event and the parent are system calls: rarely.
        if spins % 50_000 == 0 and (stop.is_set() or os.getppid() != parent):
            return


@contextmanager
def busy_cores(count: int | None = None, *, limit: float = 300.0) -> Iterator[int]:
    """Load `count` cores (all of them by default) for the block, at most `limit` seconds;
    yields how many processes spin."""
    count = count or os.cpu_count() or 1
    until = time.monotonic() + min(limit, MAX_LIMIT)
    # "spawn": a fork of a process with Chromium, Qt or asyncio threads inherits their state.
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    workers = [
        context.Process(
            target=_spin, args=(stop, until, os.getpid()), daemon=True, name=f"busy-{index}"
        )
        for index in range(count)
    ]
    for worker in workers:
        worker.start()
    try:
        yield count
    finally:
        stop.set()
        for worker in workers:
            worker.join(timeout=2)
            if worker.is_alive():
                worker.terminate()
                worker.join(timeout=2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long (at most 3600)")
    parser.add_argument("--cores", type=int, default=None, help="how many (default: all)")
    options = parser.parse_args()
    with busy_cores(options.cores, limit=options.seconds) as count:
        print(f"{count} cores busy for {min(options.seconds, MAX_LIMIT):.0f} s", flush=True)
        time.sleep(min(options.seconds, MAX_LIMIT))


if __name__ == "__main__":
    main()
