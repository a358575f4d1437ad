"""Benchmark: what saying a screen action's effect costs, on a real X server with real AT-SPI.

It starts its own Xvfb (1600×900), a private session bus with AT-SPI, the small form of
`tests/support/effect_target.py` and the ~200-element window of `bench/see_form.py`, then
measures, warm (connected, apps known):

- the first look at the target window (the window's bounded tree, the reader's batched calls),
  which an action pays before it, and a look again (`effect.Watch.look` with AT-SPI's
  `refresh`: its app's windows and the elements' names, states and values in one batch), which
  it pays after, twice or more while the window settles; on the small form and on the big one;
- a click of the computer toolset on a button that does nothing, through `tool_result` as the
  app calls it: with the effect (`AtspiWatchingInspector`) and without (`AtspiInspector`), and
  the ratio. Most of the difference is waiting: an action is judged once the window stayed
  the same for `QUIET` (150 ms), so a click that changes nothing costs at least that;
- a click that checks a box, with the effect: the same wait, starting once the box changed;
- a click on a button of the big window, with and without the effect: there each look takes
  most of the quiet wait itself.

    .venv/bin/python bench/screen_effects.py [--runs 20]

It always exits 0 and prints the figures (wall clock: on a busy machine it includes waiting for
a core); without Xvfb or AT-SPI it says so and stops.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import itertools
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from anthropic.types.beta import BetaToolUseBlock  # noqa: E402

from tests.support.atspi import SessionBus, atspi_missing  # noqa: E402
from tests.support.desk import wait_accessible  # noqa: E402
from tests.support.x11 import TargetApp, Xvfb, xvfb_missing  # noqa: E402
from tools.screen import ScreenComputer  # noqa: E402
from tools.screen.a11y.atspi.reader import AtspiInspector  # noqa: E402
from tools.screen.a11y.atspi.watching import (  # noqa: E402
    AtspiWatchingInspector,
    RefreshingAccessibility,
)
from tools.screen.a11y.effect import LIMITS, QUIET, Watch  # noqa: E402
from tools.screen.backends.x11.backend import X11Backend  # noqa: E402
from tools.screen.geometry import Point, Rect  # noqa: E402
from tools.screen.windows import Window  # noqa: E402
from tools.screen.worker import ScreenWorker  # noqa: E402

WIDTH, HEIGHT = 1600, 900
SMALL = (20, 20, 420, 300)
BIG = (460, 20, 1100, 860)
_ids = itertools.count(1)


def ready(app: TargetApp) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while not app.of("ready"):
        if time.monotonic() > deadline:
            raise SystemExit("a window never reported ready")
        time.sleep(0.02)
    return app.of("ready")[0]


async def timed(step: Callable[[], Awaitable[Any]], runs: int) -> list[float]:
    await step()  # warm
    spent = []
    for _ in range(runs):
        start = time.perf_counter()
        await step()
        spent.append((time.perf_counter() - start) * 1000)
    return spent


def line(what: str, spent: list[float]) -> str:
    ordered = sorted(spent)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return (
        f"{what:<44} median {statistics.median(spent):7.1f} ms   p90 {p90:7.1f} ms   "
        f"min {ordered[0]:7.1f} ms"
    )


async def click(toolset: ScreenComputer, shown: Point) -> None:
    """A left click at a point of the screenshot, as the model asks for it."""
    use = BetaToolUseBlock(
        type="tool_use",
        id=f"toolu_{next(_ids)}",
        name="left_click",
        input={"coordinate": [shown.x, shown.y]},
        toolset_name="computer",
    )
    block = await toolset.tool_result(use)
    assert not block.get("is_error"), block


async def watch_of(
    accessibility: RefreshingAccessibility, pid: int, rect: tuple[int, ...]
) -> Watch:
    window = Window(id=1, title="", app="", pid=pid, rect=Rect(*rect))
    framed = await accessibility.frame_of(window)
    assert framed is not None, "the window is not on the accessibility bus"
    app, frame = framed
    return Watch(accessibility, app, frame)


async def run(display: str, bus: SessionBus, small: TargetApp, big: TargetApp, runs: int) -> None:
    accessibility = RefreshingAccessibility(session=bus.address)
    worker = ScreenWorker(lambda: X11Backend(display))
    try:
        for name, app, rect in (("small form", small, SMALL), ("big window", big, BIG)):
            watch = await watch_of(accessibility, app.pid or 0, rect)
            look = await watch.look()
            frame = watch.frame.ref
            spent = await timed(lambda frame=frame: accessibility.tree([frame], LIMITS), runs)
            print(line(f"first look, {name} ({len(look.elements)} elements)", spent))
            spent = await timed(watch.look, runs)  # the looks after an action: `refresh`
            print(line(f"look again, {name}", spent))
        widgets = {k: Rect(*v) for k, v in ready(small)["widgets"].items()}
        big_watch = await watch_of(accessibility, big.pid or 0, BIG)
        big_nodes, _ = await accessibility.tree([big_watch.frame.ref])
        big_button = next(n for n in big_nodes if n.name == "Button 2.5")
        assert big_button.bounds is not None
        widgets["Button 2.5"] = big_button.bounds

        def centre(name: str) -> Point:
            box = widgets[name]
            return Point(box.x + box.width // 2, box.y + box.height // 2)

        async def allow(_context: object) -> bool:
            return True

        results = {}
        for label, inspector in (
            ("without the effect", AtspiInspector(accessibility, worker, own_pids={1})),
            ("with the effect", AtspiWatchingInspector(accessibility, worker, own_pids={1})),
        ):
            toolset = ScreenComputer(
                confirm=allow, backend=lambda: X11Backend(display), inspector=inspector
            )
            frame = await toolset._frame()  # the model's points are a screenshot's pixels
            nothing = functools.partial(click, toolset, frame.to_image(centre("Nothing")))
            results[label] = await timed(nothing, runs)
            print(line(f"click on a button that does nothing, {label}", results[label]))
            if label == "with the effect":
                box = functools.partial(click, toolset, frame.to_image(centre("Remember me")))
                results["box"] = await timed(box, runs)
                print(line("click that checks a box, with the effect", results["box"]))
            there = functools.partial(click, toolset, frame.to_image(centre("Button 2.5")))
            spent = await timed(there, runs)
            print(line(f"click in the big window, {label}", spent))
            await toolset.close()
        alone = statistics.median(results["without the effect"])
        both = statistics.median(results["with the effect"])
        print(
            f"ratio (median, with / without): {both / alone:.1f}×; added {both - alone:.0f} ms, "
            f"of which {QUIET * 1000:.0f} ms is the quiet wait"
        )
    finally:
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
        small = TargetApp(server.display, SMALL, module="tests.support.effect_target", env=env)
        big = TargetApp(server.display, BIG, module="bench.see_form", env=env)
        small.start()
        big.start()
        try:
            ready(small)
            ready(big)
            wait_accessible(bus, {small.pid or 0, big.pid or 0})
            asyncio.run(run(server.display, bus, small, big, args.runs))
        finally:
            big.close()
            small.close()


if __name__ == "__main__":
    main()
