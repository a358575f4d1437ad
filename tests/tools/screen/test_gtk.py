"""A GTK application (zenity) driven through the toolset on a real X server: typed text, a clicked
button and a scrolled list arrive as the dialog reports them on its way out."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.x11 import Xvfb, Zenity
from tests.tools.screen.conftest import Screen

pytestmark = pytest.mark.anyio

GREETING = "Grüße, Ωmega 42!"


@pytest.fixture
def zenity_installed() -> Iterator[None]:
    import shutil

    if shutil.which("zenity") is None or shutil.which("xdotool") is None:
        pytest.skip("zenity and xdotool are not installed (apt-get install zenity xdotool)")
    yield


async def test_type_into_a_gtk_entry_and_click_ok(
    screen: Screen, xvfb: Xvfb, zenity_installed: None
) -> None:
    dialog = Zenity(
        xvfb.display, ["--entry", "--title", "Deskhand test", "--text", "Name", "--width", "320"]
    )
    try:
        x, y, width, height = dialog.geometry()
        await screen.ok("screenshot")
        await screen.ok("left_click", coordinate=[x + width // 2, y + 53])  # the entry
        await screen.ok("type", text=GREETING)
        # OK is the last button of the row at the bottom right.
        await screen.ok("left_click", coordinate=[x + width - 53, y + height - 24])
        status, printed = await dialog.finished()
        assert (status, printed) == (0, GREETING + "\n")
    finally:
        dialog.close()


async def test_scroll_a_gtk_list_then_pick_a_row(
    screen: Screen, xvfb: Xvfb, zenity_installed: None
) -> None:
    rows = [f"Row {n}" for n in range(1, 201)]
    options = ["--list", "--title", "Pick", "--column", "Item", "--width", "300", "--height", "400"]
    dialog = Zenity(xvfb.display, [*options, *rows])
    try:
        x, y, width, height = dialog.geometry()
        middle = [x + width // 2, y + height // 2]
        before = (await screen.ok("zoom", region=[x, y, x + width, y + height])).image
        await screen.ok("scroll", coordinate=middle, scroll_direction="down", scroll_amount=10)
        await screen.ok("wait", duration=1)  # GTK scrolls smoothly
        after = (await screen.ok("zoom", region=[x, y, x + width, y + height])).image
        assert before.tobytes() != after.tobytes()  # the list moved
        await screen.ok("double_click", coordinate=middle)  # picks the row and closes
        status, printed = await dialog.finished()
        assert status == 0 and printed.strip() in rows
        assert int(printed.split()[1]) > 20  # a row that was below the fold before scrolling
    finally:
        dialog.close()
