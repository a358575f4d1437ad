"""The hooks around each capture that let the app take its overlay out of the pixels, on a real
X server. (That the app's overlay is absent from screenshots is checked in the window's own
end-to-end test, tests/ui/screen/test_window_screen.py.)"""

from __future__ import annotations

import asyncio

import pytest

from tests.support.pixels import red_box
from tests.support.x11 import TargetApp
from tests.tools.screen.conftest import Screen

pytestmark = pytest.mark.anyio


async def test_screenshot_and_zoom_wait_for_the_hooks_and_the_event_comes_after(
    screen: Screen, target: TargetApp
) -> None:
    order: list[str] = []

    async def before() -> None:
        order.append("before")
        await asyncio.sleep(0.05)  # the app waits until its overlay is gone
        order.append("hidden")

    screen.toolset.before_capture = before
    screen.toolset.after_capture = lambda: order.append("after")
    screen.toolset.on_event = lambda event: order.append(event.kind)
    await screen.ok("screenshot")
    await screen.ok("zoom", region=[600, 400, 800, 500])
    one = ["before", "hidden", "after"]
    assert order == [*one, "screenshot", *one, "zoom"]


async def test_a_failing_hook_does_not_cost_the_screenshot(
    screen: Screen, target: TargetApp
) -> None:
    def broken() -> None:
        raise RuntimeError("the overlay is gone")

    screen.toolset.before_capture = broken
    screen.toolset.after_capture = broken
    shot = await screen.ok("screenshot")
    assert red_box(shot.image) == (701, 433, 705, 437)  # the target's marker, where it is


async def test_after_capture_runs_when_the_capture_is_stopped(
    screen: Screen, target: TargetApp
) -> None:
    after: list[str] = []

    async def slow() -> None:
        await asyncio.sleep(10)

    screen.toolset.before_capture = slow
    screen.toolset.after_capture = lambda: after.append("after")
    task = asyncio.ensure_future(screen("screenshot"))
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert after == ["after"]  # the overlay comes back even after a Stop
