"""The person's hand wins, on a real X server: their input pauses Claude before its next input
event, Deskhand's own XTest events never do, and after Resume the model is told.

The person's input comes from another X client (a separate process sending XTest events, as a
remote desktop or an automation tool does); Deskhand's own come from the driver's backend.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from anthropic.types.beta import BetaToolUseBlock

from tests.support.x11 import TargetApp, Xvfb, gui_env
from tests.tools.screen.conftest import Gate, Result
from tools.screen import ScreenComputer
from tools.screen.hand import Hand, HandState
from tools.screen.watch.x11 import X11Watcher

pytestmark = pytest.mark.anyio

CANVAS = (600, 400)  # inside the target app's canvas (it reports presses there)

MOVE_FROM_ANOTHER_CLIENT = """
import sys
from Xlib import X, display
from Xlib.ext import xtest
d = display.Display(sys.argv[1])
for x in (300, 320, 340):
    xtest.fake_input(d, X.MotionNotify, x=x, y=200)
d.sync()
"""


def person_moves_the_mouse(display: str) -> None:
    subprocess.run(
        [sys.executable, "-c", MOVE_FROM_ANOTHER_CLIENT, display],
        env=gui_env(display),
        check=True,
        timeout=20,
    )


@dataclass
class Controls:
    hand: Hand
    toolset: ScreenComputer
    states: list[HandState]
    count = 0

    async def __call__(self, member: str, **input: object) -> Result:
        Controls.count += 1
        use = BetaToolUseBlock(
            type="tool_use",
            id=f"toolu_hand_{Controls.count}",
            name=member,
            input=input,
            toolset_name="computer",
        )
        block = await self.toolset.tool_result(use)
        json.dumps(block)
        return Result.of(dict(block))

    async def until(self, holder: str, limit: float = 10.0) -> None:
        changed = asyncio.Event()
        self.hand.listeners.append(lambda _state: changed.set())
        async with asyncio.timeout(limit):
            while self.hand.holder != holder:
                changed.clear()
                await changed.wait()


@pytest.fixture
async def controls(anyio_backend: str, xvfb: Xvfb) -> AsyncIterator[Controls]:
    from tools.screen.backends.x11.backend import X11Backend

    loop = asyncio.get_running_loop()
    hand = Hand(own_windows=list)
    watcher = X11Watcher(
        lambda event: loop.call_soon_threadsafe(hand.person_input, event), xvfb.display
    )
    hand.start_watching, hand.stop_watching = watcher.start, watcher.stop
    states: list[HandState] = []
    hand.listeners.append(states.append)
    toolset = ScreenComputer(
        confirm=Gate(), backend=lambda: X11Backend(xvfb.display), hand=hand, own_pids={1}
    )
    made = Controls(hand, toolset, states)
    yield made
    hand.release()
    await toolset.close()


async def test_deskhands_own_clicks_never_pause_it(controls: Controls, target: TargetApp) -> None:
    for x in (300, 500, 700):
        result = await controls("left_click", coordinate=[x, CANVAS[1]])
        assert not result.is_error, result.text
    await asyncio.sleep(0.5)  # the watcher has seen every one of those events by now
    assert controls.hand.holder == "claude"
    assert controls.hand.watching
    assert len(target.of("press")) == 3


async def test_a_person_moving_the_mouse_pauses_claude_before_its_next_click(
    controls: Controls, target: TargetApp
) -> None:
    first = await controls("left_click", coordinate=[300, CANVAS[1]])
    assert not first.is_error, first.text
    await target.next(lambda e: e["event"] == "press", what="the first click")
    await asyncio.sleep(0.3)  # the watcher's threads are connected

    person_moves_the_mouse(target.display)
    await controls.until("paused")

    clicking = asyncio.ensure_future(controls("left_click", coordinate=[700, CANVAS[1]]))
    await asyncio.sleep(1.2)
    assert not clicking.done(), "the click must wait while the person has the controls"
    assert len(target.of("press")) == 1, target.of("press")

    controls.hand.resume()
    result = await asyncio.wait_for(clicking, 10)
    assert result.is_error
    assert "the person used the computer for" in result.text, result.text
    assert "look again before acting" in result.text
    await asyncio.sleep(0.3)
    assert len(target.of("press")) == 1, "nothing from before the pause is replayed"

    # Once the model looked again, its clicks go through as before.
    again = await controls("left_click", coordinate=[700, CANVAS[1]])
    assert not again.is_error, again.text
    await target.next(lambda e: e["event"] == "press" and e["x"] == 700, what="the new click")
    assert [s.holder for s in controls.states if s.holder != "claude"] == ["paused"]


async def test_take_over_holds_claude_until_hand_back(
    controls: Controls, target: TargetApp
) -> None:
    controls.hand.arm()
    controls.hand.take_over()
    clicking = asyncio.ensure_future(controls("left_click", coordinate=[500, CANVAS[1]]))
    await asyncio.sleep(0.6)
    assert not clicking.done()
    controls.hand.resume()
    result = await asyncio.wait_for(clicking, 10)
    assert "The person took over the computer" in result.text, result.text
    assert target.of("press") == []
