"""Benchmark: `see`, element detection, capture and `wait` of the `screen` tool, next to Peekaboo.

It starts its own Xvfb (1600×900), a private session bus with AT-SPI, and a Qt window of about
200 accessible elements (`bench/see_form.py`), then measures, warm (connected, apps known),
through the tool exactly as the app calls it (validate, prepare, run):

- element detection: reading the window's accessible tree (bounded: depth 12, 400 elements);
- `see` of the window: target, tree, ids, the text the model reads (no image);
- capture: a screenshot of the display (1600×900, scaled to 1429×804) and of the window (PNG);
- `see` with `annotate`: all of the above and the ids drawn on the display's screenshot;
- the gate's question before a click: which element is at a point (`AtspiInspector`);
- `wait` noticing a button the window adds: from its appearing (the window stamps it with the
  same monotonic clock) to the tool noticing it.

Peekaboo's published figures: `see` about 0.76 s warm, element detection about 130 ms, capture
about 290 ms. Targets here: `see` of ~200 elements under 150 ms; `wait` notices within 100 ms.

    .venv/bin/python bench/see.py [--runs 20]

It always exits 0 and prints the figures (wall clock and this process's CPU time: on a busy
machine the wall clock includes waiting for a core); without Xvfb or AT-SPI it says so and stops.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import re
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
from tools.base import RunContext, ToolResult  # noqa: E402
from tools.screen.a11y.atspi.reader import Accessibility, AtspiInspector  # noqa: E402
from tools.screen.backends.x11.backend import X11Backend  # noqa: E402
from tools.screen.geometry import Point  # noqa: E402
from tools.screen.see.access import ScreenAccess  # noqa: E402
from tools.screen.see.tool import ScreenTool  # noqa: E402
from tools.screen.worker import ScreenWorker  # noqa: E402

WIDTH, HEIGHT = 1600, 900
WINDOW = (40, 20, 1200, 860)
PEEKABOO = {"see": 760.0, "detection": 130.0, "capture": 290.0}
_ids = itertools.count(1)


class Timing:
    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    async def measure(self, step: Callable[[], Awaitable[Any]], runs: int) -> Any:
        result = None
        for _ in range(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            result = await step()
            self.wall.append(time.perf_counter() - wall)
            self.cpu.append(time.process_time() - cpu)
        return result

    def line(self, label: str, peekaboo: float | None = None) -> str:
        wall = statistics.median(self.wall) * 1000
        cpu = statistics.median(self.cpu) * 1000
        versus = (
            f"   Peekaboo {peekaboo:4.0f} ms ({peekaboo / wall:4.1f}× ours)" if peekaboo else ""
        )
        return f"  {label:<38}{wall:7.1f} ms   CPU {cpu:6.1f} ms{versus}"


async def bench(display: str, bus: SessionBus, form: TargetApp, runs: int) -> None:
    accessibility = Accessibility(session=bus.address)
    worker = ScreenWorker(lambda: X11Backend(display))
    tool = ScreenTool(
        ScreenAccess(accessibility=accessibility, worker=worker, own_pids=frozenset({1}))
    )
    context = RunContext(session_id=1, attachments_dir=Path("/nonexistent"))

    async def call(**given: Any) -> Any:
        parsed = await tool.prepare(tool.validate(given, 1))
        assert not isinstance(parsed, ToolResult), parsed.text
        result = await tool.run(parsed, context)
        assert not result.is_error, result.text
        return result

    try:
        await call(action="see", title="Big form")  # connects, learns the apps
        windows = await worker.windows()
        assert windows is not None
        window = next(w for w in windows if w.title == "Big form")
        found = await accessibility.frame_of(window)
        assert found is not None
        frame = found[1]

        detection = Timing()
        await detection.measure(lambda: accessibility.tree([frame.ref]), runs)
        see = Timing()
        last = await see.measure(lambda: call(action="see", title="Big form"), runs)
        count = int(re.search(r": (\d+) elements", last.text)[1])  # type: ignore[index]
        capture = Timing()
        await capture.measure(lambda: call(action="screenshot", display=0), runs)
        window_shot = Timing()
        await window_shot.measure(lambda: call(action="screenshot", title="Big form"), runs)
        annotated = Timing()
        await annotated.measure(
            lambda: call(action="see", title="Big form", annotate=True), max(3, runs // 4)
        )
        inspector = AtspiInspector(accessibility, worker, own_pids={1})
        point = Point(window.rect.x + 600, window.rect.y + 300)
        hit = Timing()
        await hit.measure(lambda: inspector.element_at(point), runs)

        notices = []
        for number in range(5):
            name = f"Later{number}"
            form.send(f"add {name} 400")
            started = time.monotonic()
            result = await call(action="wait", title="Big form", role="button", label=name)
            waited = float(re.search(r"after ([0-9.]+) s", result.text)[1])  # type: ignore[index]
            added = await form.next(lambda e, n=name: e["event"] == "added" and e["name"] == n)
            notices.append((started + waited - added["t"]) * 1000)

        print(f"\nThe window holds {count} listed elements (about 200 controls and labels).\n")
        print(detection.line("element detection (tree read)", PEEKABOO["detection"]))
        print(see.line("see (no image)", PEEKABOO["see"]))
        print(capture.line("capture of the display (PNG)", PEEKABOO["capture"]))
        print(window_shot.line("capture of the window (PNG)"))
        print(annotated.line("see with the ids drawn (annotate)", PEEKABOO["see"]))
        print(hit.line("element at a point (the gate)"))
        print(
            f"  {'wait notices a new button':<38}{statistics.median(notices):7.1f} ms   "
            f"(worst of {len(notices)}: {max(notices):.1f} ms; target < 100 ms)"
        )
        verdict = "meets" if statistics.median(see.wall) < 0.150 else "misses"
        print(f"\n  `see` of {count} elements {verdict} the < 150 ms target (median wall clock).")
    finally:
        await accessibility.close()
        await worker.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    missing = xvfb_missing() or atspi_missing()
    if missing:
        print(f"Cannot run: {missing}")
        return
    with Xvfb(WIDTH, HEIGHT) as server, SessionBus(server.display) as bus:
        form = TargetApp(server.display, WINDOW, module="bench.see_form", env=bus.app_env())
        form.start()
        try:
            asyncio.run(_run(server.display, bus, form, args.runs))
        finally:
            form.close()


async def _run(display: str, bus: SessionBus, form: TargetApp, runs: int) -> None:
    await form.ready()
    await asyncio.to_thread(wait_accessible, bus, {form.pid or 0})
    await bench(display, bus, form, runs)


if __name__ == "__main__":
    main()
