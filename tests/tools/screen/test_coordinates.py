"""Screenshot pixels to screen pixels on real displays: what the model clicks is what it saw.

At 1280×800 the screenshot is the screen, pixel for pixel. At 1920×1200 it is shrunk to fit the
image limits, and a click on a screenshot pixel must land on the screen pixel under that pixel's
centre: found by looking for a red marker in the screenshot, clicked, and reported back by the
window that painted it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.pixels import red_box
from tests.support.x11 import TargetApp, Xvfb
from tests.tools.screen.conftest import Screen
from tools.screen.scaling import MAX_EDGE, MAX_PIXELS

pytestmark = pytest.mark.anyio

LARGE_MARKER = (1537, 911)  # a 4×4 red square's top-left pixel


@pytest.fixture
async def large_screen(anyio_backend: str, xvfb_large: Xvfb) -> AsyncIterator[Screen]:
    made = Screen(xvfb_large.display)
    yield made
    await made.toolset.close()


@pytest.fixture
async def large_target(anyio_backend: str, xvfb_large: Xvfb) -> AsyncIterator[TargetApp]:
    app = TargetApp(xvfb_large.display, (0, 0, 1920, 1200), marker=LARGE_MARKER)
    app.start()
    try:
        await app.ready()
        yield app
    finally:
        app.close()


def pressed_at(target: TargetApp) -> tuple[int, int]:
    press = target.of("press")[-1]
    return press["x"], press["y"]


async def test_unscaled_click_on_the_pixel_seen(screen: Screen, target: TargetApp) -> None:
    shot = (await screen.ok("screenshot")).image
    assert shot.size == (1280, 800)
    left, top, right, bottom = red_box(shot) or (0, 0, 0, 0)
    assert (left, top, right, bottom) == (701, 433, 705, 437)
    await screen.ok("left_click", coordinate=[left, top])
    await target.next(lambda e: e["event"] == "press")
    assert pressed_at(target) == (701, 433)
    assert (await screen.ok("cursor_position")).text == "X=701,Y=433"


async def test_scaled_screenshot_fits_the_limits(
    large_screen: Screen, large_target: TargetApp
) -> None:
    shot = (await large_screen.ok("screenshot")).image
    width, height = shot.size
    assert width * height <= MAX_PIXELS and max(width, height) <= MAX_EDGE
    assert width * height > MAX_PIXELS * 0.99  # as large as the limits allow
    assert abs(width / height - 1920 / 1200) < 0.005  # the same shape
    text = await large_screen.toolset.displays_text()
    assert text.splitlines() == [
        f"Displays (screenshots show display 0, at {width}×{height}; "
        "coordinates are screenshot pixels):",
        "- display 0: 1920×1200 at (0, 0), primary, in the screenshots",
    ]


async def test_scaled_click_lands_on_what_the_model_saw(
    large_screen: Screen, large_target: TargetApp
) -> None:
    shot = (await large_screen.ok("screenshot")).image
    box = red_box(shot)
    assert box is not None
    x, y = (box[0] + box[2] - 1) // 2, (box[1] + box[3] - 1) // 2  # the marker's middle
    result = await large_screen.ok("left_click", coordinate=[x, y])
    await large_target.next(lambda e: e["event"] == "press")
    px, py = pressed_at(large_target)
    assert (
        LARGE_MARKER[0] <= px < LARGE_MARKER[0] + 4 and LARGE_MARKER[1] <= py < LARGE_MARKER[1] + 4
    )
    assert result.texts[1] == f"Display 0, local ({px}, {py}), global ({px}, {py})."
    # And the pointer reads back as the very screenshot pixel that was clicked.
    assert (await large_screen.ok("cursor_position")).text == f"X={x},Y={y}"


@pytest.mark.parametrize("where", ["top-left", "bottom-right", "inside"])
async def test_scaled_pixels_map_to_the_centre_pixel(
    large_screen: Screen, large_target: TargetApp, where: str
) -> None:
    shot = (await large_screen.ok("screenshot")).image
    width, height = shot.size
    x, y = {
        "top-left": (0, 100),
        "bottom-right": (width - 1, height - 1),
        "inside": (777, 555),
    }[where]
    large_target.clear()
    await large_screen.ok("left_click", coordinate=[x, y])
    await large_target.next(lambda e: e["event"] == "press")
    # The screen pixel under the centre of screenshot pixel (x, y), as DESIGN/scaling.py define it.
    expected = ((2 * x + 1) * 1920 // (2 * width), (2 * y + 1) * 1200 // (2 * height))
    assert pressed_at(large_target) == expected
    assert (await large_screen.ok("cursor_position")).text == f"X={x},Y={y}"


async def test_zoom_on_a_scaled_screen_shows_the_screen_pixels(
    large_screen: Screen, large_target: TargetApp
) -> None:
    shot = (await large_screen.ok("screenshot")).image
    box = red_box(shot)
    assert box is not None
    region = [box[0] - 8, box[1] - 8, box[2] + 8, box[3] + 8]
    zoomed = (await large_screen.ok("zoom", region=region)).image
    assert zoomed.width > (region[2] - region[0]) * 2  # enlarged beyond the screenshot's detail
    zoomed_box = red_box(zoomed)
    assert zoomed_box is not None
    # The marker is 4 screen pixels wide; in the zoom it spans the same share of the width.
    share = (zoomed_box[2] - zoomed_box[0]) / zoomed.width
    screen_width = (region[2] - region[0]) * 1920 / shot.width
    assert abs(share - 4 / screen_width) < 0.05
