"""The driver on several displays: which one the screenshots show, where a click lands, what the
results say. Xvfb offers a single display, so a backend with a synthetic layout (a display left
of the origin and a Retina one to the right) stands in here; it records the events it is sent.
The mapping itself is the same code the X11 tests drive on a real server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from anthropic.types.beta import BetaToolUseBlock
from PIL import Image

from tools.screen import Display, Point, Rect, ScreenComputer, errors
from tools.screen.backends.base import MouseButton, ScrollDirection, WindowInfo

pytestmark = pytest.mark.anyio

MAIN = Display(frame=Rect(0, 0, 1280, 800), primary=True, name="main")
LEFT = Display(frame=Rect(-1920, -300, 1920, 1200), name="left")
RETINA = Display(frame=Rect(1280, 0, 1440, 900), scale=2.0, name="retina")


class LayoutBackend:
    """Three displays; input is recorded, captures are blank images of the right pixel size."""

    name = "layout"

    def __init__(self) -> None:
        self.layout = [RETINA, MAIN, LEFT]
        self.sent: list[tuple[Any, ...]] = []
        self.at = Point(10, 10)
        self.captured: list[tuple[Rect, float]] = []

    def displays(self) -> list[Display]:
        return list(self.layout)

    def capture(self, region: Rect, size: tuple[int, int]) -> Image.Image:
        self.captured.append((region, size))
        return Image.new("RGB", size)

    def pointer(self) -> Point:
        return self.at

    def move(self, point: Point) -> None:
        self.at = point
        self.sent.append(("move", point))

    def button(self, button: MouseButton, down: bool, clicks: int = 1) -> None:
        self.sent.append(("button", button, down))

    def wheel(self, direction: ScrollDirection) -> None:
        self.sent.append(("wheel", direction))

    def key(self, key: str, down: bool) -> None:
        self.sent.append(("key", key, down))

    def type_char(self, char: str) -> None:
        self.sent.append(("char", char))

    def prepare_keyboard(self) -> None:
        pass

    def focused_window(self) -> WindowInfo | None:
        return None

    def activate(self, window: WindowInfo) -> None:
        pass

    def close(self) -> None:
        pass


Layout = tuple[ScreenComputer, LayoutBackend]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def layout(anyio_backend: str) -> AsyncIterator[tuple[ScreenComputer, LayoutBackend]]:
    backend = LayoutBackend()
    screen = ScreenComputer(confirm=lambda context: True, backend=lambda: backend)
    yield screen, backend
    await screen.close()


async def call(screen: ScreenComputer, member: str, **input: Any) -> dict[str, Any]:
    use = BetaToolUseBlock(
        type="tool_use", id="toolu_1", name=member, input=input, toolset_name="computer"
    )
    return dict(await screen.tool_result(use))


def texts(block: dict[str, Any]) -> list[str]:
    return [part["text"] for part in block["content"] if part["type"] == "text"]


async def test_the_primary_display_is_shown_first(layout: Layout) -> None:
    screen, backend = layout
    assert [d.name for d in await screen.displays()] == ["left", "main", "retina"]
    await call(screen, "screenshot")
    assert backend.captured == [(MAIN.frame, (1280, 800))]
    assert screen.current_display == 1
    assert (await screen.displays_text()).splitlines()[1:] == [
        "- display 0: 1920×1200 at (-1920, -300)",
        "- display 1: 1280×800 at (0, 0), primary, in the screenshots",
        "- display 2: 1440×900 at (1280, 0), scale 2",
    ]


async def test_clicks_land_on_the_chosen_display(layout: Layout) -> None:
    screen, backend = layout
    await screen.select_display(0)
    await call(screen, "screenshot")
    assert backend.captured[-1] == (LEFT.frame, (1356, 847))
    result = await call(screen, "left_click", coordinate=[0, 0])
    assert backend.sent[0] == ("move", Point(-1920, -300))
    assert texts(result)[1] == "Display 0, local (0, 0), global (-1920, -300)."
    # The screenshot is 1356×847; its last pixel is the display's last pixel.
    result = await call(screen, "left_click", coordinate=[1355, 846])
    assert texts(result)[1] == "Display 0, local (1919, 1199), global (-1, 899)."


async def test_a_retina_display_is_captured_in_pixels_and_clicked_in_points(layout: Layout) -> None:
    screen, backend = layout
    await screen.select_display(2)
    block = await call(screen, "screenshot")
    assert backend.captured[-1] == (RETINA.frame, (1356, 847))  # the points, fitted
    assert block["content"][0]["type"] == "image"
    result = await call(screen, "double_click", coordinate=[678, 423])
    assert texts(result)[1] == "Display 2, local (720, 450), global (2000, 450)."
    # A zoom is taken from the display's pixels: 107×107 points are 214×214 pixels, shown 4×.
    await call(screen, "zoom", region=[0, 0, 100, 100])
    assert backend.captured[-1] == (Rect(1280, 0, 107, 107), (856, 856))


async def test_the_cursor_on_another_display_is_said_so(layout: Layout) -> None:
    screen, backend = layout
    await call(screen, "screenshot")
    backend.at = Point(-5, 10)
    result = await call(screen, "cursor_position")
    assert result["is_error"] and texts(result) == [errors.CURSOR_ON_OTHER_DISPLAY.format(index=0)]
    backend.at = Point(-1930, 10)
    assert texts(await call(screen, "cursor_position")) == [errors.CURSOR_OFF_DISPLAYS]


async def test_a_display_that_changed_since_the_screenshot(layout: Layout) -> None:
    screen, backend = layout
    await call(screen, "screenshot")
    backend.layout = [RETINA, MAIN.model_copy(update={"frame": Rect(0, 0, 1024, 768)}), LEFT]
    result = await call(screen, "left_click", coordinate=[10, 10])
    assert result["is_error"] and texts(result) == [errors.DISPLAY_CHANGED]
    assert backend.sent == []
    await call(screen, "screenshot")  # a fresh look makes it usable again
    assert not (await call(screen, "left_click", coordinate=[10, 10])).get("is_error")


async def test_there_is_no_display_five(layout: Layout) -> None:
    screen, _ = layout
    from anthropic.tools import ToolError

    with pytest.raises(ToolError) as refused:
        await screen.select_display(5)
    assert str(refused.value) == errors.UNKNOWN_DISPLAY
