"""Benchmark: a trivial JXA action through the worker pool versus one-shot osascript processes.

Runs N sequential and N concurrent calls of the `ping` script each way, side by side, and prints
calls per second, the median time per call (for a trivial action that is all overhead) and the
one-shot/worker ratio. On a Mac it runs the real osascript; elsewhere it runs the Node JXA
stand-in (a simulation of osascript) and says so. Target: the worker path has at least 10x
less overhead per call than one-shot.

    .venv/bin/python bench/osa_calls.py [--calls 200] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.mac.osa.engine import OSASCRIPT_ENV, OsaEngine, find_osascript  # noqa: E402

STANDIN = ROOT / "tests" / "support" / "jxa" / "osascript"
Call = Callable[[int], Awaitable[Any]]


def choose_osascript() -> str:
    """Where this run's osascript comes from, setting $DESKHAND_OSASCRIPT for the stand-in."""
    if sys.platform == "darwin" and find_osascript("osascript"):
        return "macOS osascript"
    if os.environ.get(OSASCRIPT_ENV):
        return f"{os.environ[OSASCRIPT_ENV]} (from ${OSASCRIPT_ENV})"
    if shutil.which("node") is None:
        sys.exit("No osascript here and no node for the stand-in: nothing to measure.")
    os.environ[OSASCRIPT_ENV] = str(STANDIN)
    return "the Node JXA stand-in (a SIMULATION of osascript: not macOS, no Apple Events)"


async def sequential(call: Call, n: int) -> tuple[float, list[float]]:
    times = []
    started = time.perf_counter()
    for i in range(n):
        begin = time.perf_counter()
        await call(i)
        times.append(time.perf_counter() - begin)
    return time.perf_counter() - started, times


async def concurrent(call: Call, n: int) -> tuple[float, list[float]]:
    async def timed(i: int) -> float:
        begin = time.perf_counter()
        await call(i)
        return time.perf_counter() - begin

    started = time.perf_counter()
    times = await asyncio.gather(*(timed(i) for i in range(n)))
    return time.perf_counter() - started, list(times)


async def main(calls: int, workers: int) -> None:
    source = choose_osascript()
    engine = OsaEngine(workers=workers)
    once = OsaEngine(workers=0)  # what the app falls back to when no worker can start
    try:
        started = time.perf_counter()
        await engine.start()
        startup = time.perf_counter() - started
        if not engine.worker_pids:
            sys.exit("The workers did not start; see the log.")

        async def pooled(i: int) -> Any:
            return await engine.call("ping", {"i": i})

        async def one_shot(i: int) -> Any:
            return await once.call("ping", {"i": i})

        print(f"osascript: {source}")
        print(f"{calls} calls of a trivial action each way; {workers} workers, started in "
              f"{startup * 1000:.0f} ms; one-shot runs at most 4 processes at once.\n")  # fmt: skip
        header = f"{'':<12}{'path':<10}{'calls/s':>10}{'median ms/call':>16}{'per call ms':>13}"
        print(header)
        print("-" * len(header))
        for label, measure in (("sequential", sequential), ("concurrent", concurrent)):
            results = {}
            for path, call in (("worker", pooled), ("one-shot", one_shot)):
                wall, times = await measure(call, calls)
                results[path] = (wall / calls, statistics.median(times))
                print(
                    f"{label:<12}{path:<10}{calls / wall:>10.1f}"
                    f"{statistics.median(times) * 1000:>16.2f}{wall / calls * 1000:>13.2f}"
                )
            per_call = results["one-shot"][0] / results["worker"][0]
            median = results["one-shot"][1] / results["worker"][1]
            verdict = "meets" if per_call >= 10 else "MISSES"
            print(f"{label:<12}one-shot/worker: {per_call:.0f}x per call, {median:.0f}x median "
                  f"({verdict} the 10x target)\n")  # fmt: skip
    finally:
        await engine.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.calls, arguments.workers))
