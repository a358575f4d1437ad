"""Benchmark: what keeping a screen target by meaning and finding it again cost, on real AT-SPI.

It starts its own Xvfb (1600×900), a private session bus with AT-SPI, the form of
`tests/support/see_target.py` (titled "Notes", with a group box "Billing" holding a second
button "Save") and the ~200-element window of `bench/see_form.py`, then measures, warm
(connected, apps known):

- the gate's look at the element under a point (`AtspiInspector.element_at`, what `judge`
  already pays), on the "Save" in the group, with the named element holding it asked up its
  parents (`near`) and without: the meaning's only cost on top of judging;
- `find_again` of a button that is there, as a replayed step pays it before it acts: on the
  small form (told apart from its twin by its group) and on the big window;
- a button that appears 300 ms after it is asked for: the time from its appearance (the form's
  own clock) to `find_again` answering with it.

    .venv/bin/python bench/screen_refind.py [--runs 20]

It always exits 0 and prints the figures (wall clock: on a busy machine it includes waiting for
a core); without Xvfb or AT-SPI it says so and stops.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.atspi import SessionBus, atspi_missing  # noqa: E402
from tests.support.desk import wait_accessible  # noqa: E402
from tests.support.x11 import TargetApp, Xvfb, xvfb_missing  # noqa: E402
from tools.meaning import TargetMeaning  # noqa: E402
from tools.screen import ScreenComputer  # noqa: E402
from tools.screen.a11y.atspi import reader  # noqa: E402
from tools.screen.a11y.atspi.watching import (  # noqa: E402
    AtspiWatchingInspector,
    RefreshingAccessibility,
)
from tools.screen.backends.x11.backend import X11Backend  # noqa: E402
from tools.screen.geometry import Point, Rect  # noqa: E402
from tools.screen.worker import ScreenWorker  # noqa: E402

WIDTH, HEIGHT = 1600, 900
SMALL = (20, 20, 620, 440)
BIG = (660, 20, 900, 860)
SAVE = TargetMeaning(
    app="see_target.py", window="Notes", role="push button", name="Save", near="Billing"
)
BIG_BUTTON = TargetMeaning(
    app="see_form.py", window="Big form", role="push button", name="Button 2.0"
)


def _figure(seconds: list[float]) -> str:
    ms = sorted(value * 1000 for value in seconds)
    return f"median {statistics.median(ms):6.1f} ms, range {ms[0]:.1f}–{ms[-1]:.1f}"


async def _timed(runs: int, call: Callable[[], Awaitable[Any]]) -> list[float]:
    await call()  # warm
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        times.append(time.perf_counter() - started)
    return times


def _wait(app: TargetApp, event: str) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while not app.of(event):
        if time.monotonic() > deadline:
            raise SystemExit(f"the form never reported {event}")
        time.sleep(0.02)
    return app.of(event)[-1]


async def _no_near(*_args: Any) -> str:
    return ""


async def run(display: str, bus: SessionBus, small: TargetApp, runs: int) -> None:
    accessibility = RefreshingAccessibility(session=bus.address)
    worker = ScreenWorker(lambda: X11Backend(display))
    inspector = AtspiWatchingInspector(accessibility, worker, own_pids={1})

    async def allow(_context: object) -> bool:
        return True

    screen = ScreenComputer(confirm=allow, backend=lambda: X11Backend(display), inspector=inspector)
    try:
        grouped = Rect(*small.of("grouped")[-1]["rect"])
        point = Point(grouped.x + grouped.width // 2, grouped.y + grouped.height // 2)
        print("The gate's look at the element under a point (3 alternating rounds):")
        asks = reader.near_above
        for round_ in range(3):
            for label, near in (("with near", asks), ("without", _no_near)):
                reader.near_above = near  # type: ignore[assignment]
                times = await _timed(runs, lambda: inspector.element_at(point))
                print(f"  round {round_ + 1}, {label:9}: {_figure(times)}")
        reader.near_above = asks

        async def find(meaning: TargetMeaning) -> None:
            found = await screen.find_again(meaning, within=5)
            if not found.found:
                raise SystemExit(f"not found: {found.why}")

        print("find_again of a button that is there:")
        for label, meaning in (("small form", SAVE), ("big window", BIG_BUTTON)):
            times = await _timed(runs, lambda m=meaning: find(m))  # type: ignore[misc]
            print(f"  {label}: {_figure(times)}")

        latencies = []
        for number in range(5):  # five rows fit in the form
            name = f"Late{number}"
            small.send(f"add {name} 300")
            await find(TargetMeaning(app=SAVE.app, window="Notes", role="push button", name=name))
            answered = time.monotonic()
            added = next(e for e in small.of("added") if e["name"] == name)
            latencies.append(answered - added["t"])
        print(f"A button appearing late, found after it appeared: {_figure(latencies)}")
    finally:
        await screen.close()
        await worker.close()
        await accessibility.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    missing = xvfb_missing() or atspi_missing()
    if missing:
        print(f"Skipped: {missing}")
        return
    with Xvfb(WIDTH, HEIGHT) as server, SessionBus(server.display) as bus:
        env = bus.app_env()
        small = TargetApp(
            server.display, SMALL, module="tests.support.see_target", args=("Notes",), env=env
        )
        big = TargetApp(server.display, BIG, module="bench.see_form", env=env)
        small.start()
        big.start()
        try:
            _wait(small, "ready")
            _wait(big, "ready")
            wait_accessible(bus, {small.pid or 0, big.pid or 0})
            small.send("group Billing Save")
            _wait(small, "grouped")
            asyncio.run(run(server.display, bus, small, args.runs))
        finally:
            big.close()
            small.close()


if __name__ == "__main__":
    main()
